package dev.jccl.plan;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The two binary trees of the pipelined AllReduce: shape, depth, and how they share the forwarding. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class BinaryTreeTest {

    @Test
    void everyRankHangsUnderTheRootWithAtMostTwoChildrenAndAtMostLog2SizeDeep() {
        for (int size = 1; size <= 300; size++) {
            int log2 = 32 - Integer.numberOfLeadingZeros(size - 1);
            for (BinaryTree.Layout layout : BinaryTree.Layout.values()) {
                BinaryTree t = new BinaryTree(size, layout);
                String where = size + " ranks, " + layout;
                assertTrue(t.height() <= log2, where + ": height " + t.height());
                int roots = 0;
                int edges = 0;
                for (int rank = 0; rank < size; rank++) {
                    int[] children = t.childrenOf(rank);
                    assertTrue(children.length <= 2, where + ": rank " + rank);
                    for (int child : children) {
                        assertEquals(rank, t.parentOf(child), where + ": child " + child + " of " + rank);
                        assertEquals(t.depthOf(rank) + 1, t.depthOf(child), where + ": depth of " + child);
                        edges++;
                    }
                    if (t.parentOf(rank) < 0) {
                        roots++;
                        assertEquals(0, t.depthOf(rank), where);
                        assertTrue(children.length <= 1, where + ": the root has one child");
                    }
                    assertTrue(t.depthOf(rank) <= t.height(), where);
                }
                assertEquals(1, roots, where);
                assertEquals(size - 1, edges, where + ": a tree of every rank");
            }
        }
    }

    @Test
    void theSecondTreesInnerRanksAreTheFirstsLeaves() {
        for (int size = 3; size <= 300; size++) {
            BinaryTree first = new BinaryTree(size, BinaryTree.Layout.IDENTITY);
            BinaryTree second = new BinaryTree(size, BinaryTree.Layout.secondFor(size));
            int forwardInBoth = 0;
            int forwardInNone = 0;
            for (int rank = 0; rank < size; rank++) {
                boolean a = first.childrenOf(rank).length > 0;
                boolean b = second.childrenOf(rank).length > 0;
                if (a && b) forwardInBoth++;
                if (!a && !b) forwardInNone++;
            }
            // Odd sizes: rank 0 roots the first tree and has a child in the shifted one too.
            assertEquals(size % 2 == 0 ? 0 : 1, forwardInBoth, size + " ranks: ranks forwarding for both trees");
            assertEquals(0, forwardInNone, size + " ranks: ranks forwarding for neither tree");
        }
    }

    @Test
    void aPowerOfTwoIsTheTreeOfLowestSetBits() {
        BinaryTree t = new BinaryTree(16, BinaryTree.Layout.IDENTITY);
        assertEquals(4, t.height());
        assertEquals(0, t.parentOf(8));
        assertEquals(8, t.parentOf(4));
        assertEquals(8, t.parentOf(12));
        assertEquals(4, t.parentOf(2));
        assertEquals(2, t.parentOf(3));
        assertEquals(14, t.parentOf(15));
        assertEquals(0, t.childrenOf(7).length);
        BinaryTree mirrored = new BinaryTree(16, BinaryTree.Layout.MIRRORED);
        assertEquals(15, mirrored.parentOf(7)); // virtual 8 under virtual 0
    }
}
