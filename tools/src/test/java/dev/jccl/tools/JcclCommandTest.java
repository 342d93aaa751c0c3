package dev.jccl.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jccl.Jccl;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 30, unit = TimeUnit.SECONDS)
class JcclCommandTest {

    @Test
    void versionIsJcclsAndNamesTheJava() {
        Cli.Result r = Cli.inProcess(Cli.environment(), "--version");
        assertEquals(0, r.code(), r::toString);
        assertEquals(
                "jccl " + Jccl.version() + " (Java " + Runtime.version() + ", " + System.getProperty("java.vendor")
                        + ")\n",
                r.out());
    }

    @Test
    void helpListsTheSubcommands() {
        Cli.Result r = Cli.inProcess(Cli.environment(), "--help");
        assertEquals(0, r.code(), r::toString);
        for (String sub : new String[] {"id", "info", "run"}) {
            assertTrue(r.out().contains("\n  " + sub + " "), r::toString);
        }
    }

    @Test
    void noSubcommandIsAUsageError() {
        Cli.Result r = Cli.inProcess(Cli.environment());
        assertEquals(2, r.code(), r::toString);
        assertTrue(r.err().contains("Missing required subcommand"), r::toString);
        assertTrue(r.err().contains("Usage: jccl"), r::toString);
    }
}
