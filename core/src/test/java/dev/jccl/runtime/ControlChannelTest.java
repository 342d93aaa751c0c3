package dev.jccl.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jccl.FailureVerdict;
import java.net.InetAddress;
import java.net.InetSocketAddress;
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
}
