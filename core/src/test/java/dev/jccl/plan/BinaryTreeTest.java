package dev.jccl.plan;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The binary trees of the pipelined AllReduce, Broadcast and Reduce: shape, depth, how they share the forwarding. */
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

    /**
     * The rooted trees of a pipelined Broadcast or Reduce, for every root: each tree reaches every rank from the root,
     * the root has one child in each, and the forwarding is shared so that no rank's port carries more than two pieces
     * out per step (three for one rank where the others are an odd count), at most ⌈log2(size − 1)⌉ + 1 deep.
     */
    @Test
    void theRootedTreesReachEveryRankAndShareTheForwarding() {
        for (int size = 2; size <= 130; size++) {
            int log2 = 32 - Integer.numberOfLeadingZeros(size - 2);
            for (int root : new int[] {0, 1, size / 2, size - 1}) {
                RootedTrees trees = new RootedTrees(size, root);
                String where = size + " ranks, root " + root;
                assertTrue(trees.height() <= log2 + 1, where + ": height " + trees.height());
                int threeChildren = 0;
                for (int rank = 0; rank < size; rank++) {
                    int sends = 0;
                    for (int t = 0; t < 2; t++) {
                        int[] children = trees.childrenOf(t, rank);
                        sends += children.length;
                        for (int child : children) {
                            assertEquals(rank, trees.parentOf(t, child), where + ": tree " + t + ", child " + child);
                            assertEquals(trees.depthOf(t, rank) + 1, trees.depthOf(t, child), where);
                        }
                        // Every rank's path up ends at the root, within the height.
                        int up = rank;
                        int hops = 0;
                        while (up != root) {
                            up = trees.parentOf(t, up);
                            assertTrue(++hops <= trees.height(), where + ": rank " + rank + " never reaches the root");
                        }
                        assertEquals(trees.depthOf(t, rank), hops, where + ": depth of " + rank);
                    }
                    if (rank == root) {
                        assertEquals(2, sends, where + ": the root feeds the top of each tree");
                    } else {
                        assertTrue(sends <= 3, where + ": rank " + rank + " forwards " + sends + " pieces a step");
                        if (sends == 3) threeChildren++;
                    }
                }
                assertTrue(threeChildren <= ((size - 1) % 2 == 1 ? 1 : 0), where + ": " + threeChildren);
            }
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
