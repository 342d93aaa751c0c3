package dev.jccl.bootstrap;

import static org.junit.jupiter.api.Assertions.*;

import dev.jccl.Fuzz;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The rendezvous decoders against mutated and random bytes: a frame or an IOException, never anything else, never a big
 * allocation.
 */
@Timeout(60)
class BootstrapDecoderFuzzTest {
    private static final PeerInfo ALICE =
            new PeerInfo(0, "host-a", "alice.example", 4242, "10.0.0.1", 40123, "jccl-1-4242-ab", "ALGO=Ring");
    private static final PeerInfo BOB = new PeerInfo(1, "host-b", "bob", 77, "fe80::1", 5, "", "");

    @Test
    void framesDecodeOrAreRefused() throws IOException {
        List<byte[]> seeds = new ArrayList<>();
        seeds.add(frame(BootstrapFrames.CHALLENGE, new byte[BootstrapFrames.NONCE_BYTES]));
        ByteArrayOutputStream hello = new ByteArrayOutputStream();
        DataOutputStream h = new DataOutputStream(hello);
        h.writeInt(1);
        h.writeInt(2);
        h.writeLong(30_000);
        h.write(new byte[BootstrapFrames.NONCE_BYTES + BootstrapFrames.PROOF_BYTES]);
        h.write(BOB.encode());
        seeds.add(frame(BootstrapFrames.HELLO, hello.toByteArray()));
        ByteArrayOutputStream table = new ByteArrayOutputStream();
        table.write(new byte[BootstrapFrames.PROOF_BYTES]);
        new DataOutputStream(table).writeInt(2);
        table.write(ALICE.encode());
        table.write(BOB.encode());
        seeds.add(frame(BootstrapFrames.TABLE, table.toByteArray()));
        seeds.add(frame(
                BootstrapFrames.ERROR, "root refused this connection: wrong secret".getBytes(StandardCharsets.UTF_8)));

        Fuzz.Report report = Fuzz.run("BootstrapFrames.read", seeds, 256 << 10, input -> {
            try {
                BootstrapFrames.Frame f = BootstrapFrames.read(new DataInputStream(new ByteArrayInputStream(input)));
                assertTrue(
                        f.payload().length <= BootstrapFrames.maxPayload(f.type()),
                        "a frame over its type's bound was accepted");
                return true;
            } catch (IOException refused) {
                return false;
            }
        });
        assertTrue(report.decoded() > 0 && report.refused() > 0, "the mutations must reach both outcomes: " + report);
    }

    @Test
    void peerInfosDecodeOrAreRefused() {
        Fuzz.Report report = Fuzz.run("PeerInfo.decode", List.of(ALICE.encode(), BOB.encode()), 512 << 10, input -> {
            try {
                PeerInfo p = PeerInfo.decode(input);
                assertTrue(p.dataPort() >= 0 && p.dataPort() <= 65535, () -> "port out of range accepted: " + p);
                assertNotNull(p.hostId());
                return true;
            } catch (IOException refused) {
                return false;
            }
        });
        assertTrue(report.decoded() > 0 && report.refused() > 0, report.toString());
    }

    private static byte[] frame(short type, byte[] payload) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        BootstrapFrames.write(new DataOutputStream(bytes), type, payload);
        return bytes.toByteArray();
    }
}
