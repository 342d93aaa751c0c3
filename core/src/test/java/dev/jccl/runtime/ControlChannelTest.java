package dev.jccl.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jccl.FailureVerdict;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** A rank's control listener before and after its communicator exists. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class ControlChannelTest {
    @Test
    void aRankStillStartingSaysSoAndAnswersOnceItServes() throws Exception {
        try (ControlChannel channel = ControlChannel.open(InetAddress.getLoopbackAddress(), new byte[32], 7)) {
            InetSocketAddress address = new InetSocketAddress(InetAddress.getLoopbackAddress(), channel.port());
            // Not a connection failure: the asker can tell "alive, still starting" from "gone" and ask again.
            ControlChannel.NotReadyException notYet = assertThrows(
                    ControlChannel.NotReadyException.class,
                    () -> ControlChannel.askStatus(address, channel.token(), 2_000));
            assertTrue(notYet.getMessage().contains("still initialising"), notYet.getMessage());
            // Nor can it decide a verdict yet: an asker must wait for it, not pass it over and decide a second one.
            assertThrows(
                    ControlChannel.NotReadyException.class,
                    () -> ControlChannel.askVerdict(address, channel.token(), 1, 2_000));

            RankActivity activity = new RankActivity();
            channel.serve(new ControlChannel.Responder() {
                @Override
                public RankStatus status() {
                    return activity.snapshot(3);
                }

                @Override
                public FailureVerdict verdictFor(int asker) {
                    throw new UnsupportedOperationException("not asked here");
                }
            });
            assertEquals(
                    3, ControlChannel.askStatus(address, channel.token(), 2_000).rank());
        }
    }

    /**
     * A peer whose process dies as it is asked may have taken the connection into its backlog and then reset it: that
     * tells the same as a refused connection, and is told apart from other errors. Here a listener that resets each
     * connection it accepts (linger 0) stands for such a process, and a closed port for one already gone.
     */
    @Test
    void aPeerThatResetsOrRefusesTheQuestionIsToldApart() throws Exception {
        byte[] token = new byte[16];
        try (ServerSocket dying = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            Thread resetter = new Thread(() -> {
                try (Socket accepted = dying.accept()) {
                    accepted.setSoLinger(true, 0); // close with a reset, unread question and all
                } catch (IOException ignored) {
                    // the test ends
                }
            });
            resetter.start();
            InetSocketAddress address = new InetSocketAddress(InetAddress.getLoopbackAddress(), dying.getLocalPort());
            IOException e = assertThrows(IOException.class, () -> ControlChannel.askStatus(address, token, 2_000));
            assertTrue(ControlChannel.reset(e), () -> "a reset: " + e);
            assertFalse(ControlChannel.refused(e), () -> "not a refusal: " + e);
            resetter.join(5_000);
        }
        int closedPort;
        try (ServerSocket gone = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closedPort = gone.getLocalPort();
        }
        InetSocketAddress address = new InetSocketAddress(InetAddress.getLoopbackAddress(), closedPort);
        IOException e = assertThrows(IOException.class, () -> ControlChannel.askStatus(address, token, 2_000));
        assertTrue(ControlChannel.refused(e), () -> "a refusal: " + e);
        assertFalse(ControlChannel.reset(e), () -> "not a reset: " + e);
    }
}
