package dev.jccl.transport.shm;

import static org.junit.jupiter.api.Assertions.*;

import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A small outbox record carries a 64-bit digest of its operation instead of the operation itself, so a rank that called
 * another collective is caught by comparing digests. The likely mistakes are near misses: one rank a call ahead, a
 * count off by one, another root, type or op. None of those may share a digest.
 */
@Timeout(60)
class SmallRecordDigestTest {
    /** A descriptor as {@code OpContext} lays it out: collective, type, op in the low bytes, root + 1 above them. */
    private static long descriptor(int collective, int type, int op, int root) {
        return collective | (long) type << 8 | (long) op << 16 | (long) (root + 1) << 24;
    }

    @Test
    void operationsOneStepApartNeverShareADigest() {
        long pairs = 0;
        for (long sequence = 0; sequence < 64; sequence++) {
            for (long count = 0; count <= 16; count++) {
                for (int collective = 0; collective < 10; collective++) {
                    for (int type = 0; type < 12; type++) {
                        for (int op = 0; op < 6; op++) {
                            for (int root = -1; root < 4; root++) {
                                long d = descriptor(collective, type, op, root);
                                long digest = ShmOutbox.digest(sequence, d, count);
                                long[][] neighbours = {
                                    {sequence + 1, d, count},
                                    {sequence, d, count + 1},
                                    {sequence, descriptor(collective + 1, type, op, root), count},
                                    {sequence, descriptor(collective, type + 1, op, root), count},
                                    {sequence, descriptor(collective, type, op + 1, root), count},
                                    {sequence, descriptor(collective, type, op, root + 1), count},
                                };
                                for (long[] n : neighbours) {
                                    pairs++;
                                    assertNotEquals(
                                            digest,
                                            ShmOutbox.digest(n[0], n[1], n[2]),
                                            "sequence " + sequence + ", descriptor " + d + ", count " + count
                                                    + " against " + n[0] + ", " + n[1] + ", " + n[2]);
                                }
                            }
                        }
                    }
                }
            }
        }
        assertTrue(pairs > 2_000_000, "pairs checked: " + pairs);
    }

    @Test
    void theDigestsOfOneRanksCallsSpreadOverTheirRange() {
        // A loop of one 8-byte call: 100 000 calls in a row give as many digests.
        Set<Long> seen = new HashSet<>();
        long d = descriptor(0, 7, 0, -1);
        for (long sequence = 0; sequence < 100_000; sequence++) seen.add(ShmOutbox.digest(sequence, d, 2));
        assertEquals(100_000, seen.size(), "distinct digests");
    }
}
