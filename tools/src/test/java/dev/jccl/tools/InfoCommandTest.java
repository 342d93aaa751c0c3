package dev.jccl.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.jccl.Config;
import dev.jccl.Jccl;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 30, unit = TimeUnit.SECONDS)
class InfoCommandTest {

    @Test
    void textHasEverySectionAndTheEffectiveConfiguration() {
        Cli.Result r = Cli.inProcess(
                Cli.environment(
                        "JCCL_SOCKET_IFNAME",
                        "lo",
                        "JCCL_TIMEOUT",
                        "30",
                        "NCCL_ALGO",
                        "ring",
                        "JCCL_TIMOUT",
                        "5",
                        "JCCL_JVM_ROOT",
                        "/opt/jdks"),
                "info");

        assertEquals(0, r.code(), r::toString);
        String out = r.out();
        assertTrue(out.startsWith("jccl " + Jccl.version() + "\n"), out);
        assertTrue(out.contains("java        " + Runtime.version()), out);
        assertTrue(out.contains("host        " + HostReport.readHostName() + "\n"), out);
        assertTrue(out.contains("interface   lo 127.0.0.1\n"), out);
        assertTrue(out.contains("  filter    lo (from JCCL_SOCKET_IFNAME)\n"), out);
        assertTrue(
                Pattern.compile("^  candidates .*lo 127\\.0\\.0\\.1", Pattern.MULTILINE)
                        .matcher(out)
                        .find(),
                out);
        assertTrue(
                Pattern.compile("transports\n  tcp   available\n  shm   available \\(/dev/shm, [0-9.]+ "
                                + "GiB free; waiting ranks "
                                + "sleep on futexes\\)\n  ucx   UCX 1\\.\\d+\\.\\d+ \\(libucp\\.so\\.0\\), "
                                + "JUCX 1\\.12\\.1, .*; not selected \\(TCP is the default "
                                + "between hosts; JCCL_NET=UCX selects it\\)\n  cuda  (not available: |CUDA )")
                        .matcher(out)
                        .find(),
                out);
        assertTrue(row(out, "NAME", "VALUE", "SOURCE"), out);
        assertTrue(row(out, "timeout", "30.0 s", "JCCL_TIMEOUT"), out);
        assertTrue(row(out, "algo", "ring", "NCCL_ALGO"), out);
        assertTrue(row(out, "buffSize", "4194304", "default"), out);
        assertTrue(out.contains("warnings\n  unknown variable JCCL_TIMOUT (did you mean JCCL_TIMEOUT?)\n"), out);
        assertFalse(out.contains("JCCL_JVM_ROOT"), "the ./jccl script's own variable is no mistake:\n" + out);
        assertEquals("", r.err());
    }

    @Test
    void sharedMemoryTurnedOffSaysByWhat() {
        Cli.Result r = Cli.inProcess(Cli.environment("NCCL_SHM_DISABLE", "1"), "info");
        assertEquals(0, r.code(), r::toString);
        assertTrue(r.out().contains("  shm   off (NCCL_SHM_DISABLE=1): ranks of one host use TCP\n"), r::toString);
    }

    @Test
    void noWarningsSaysSo() {
        Cli.Result r = Cli.inProcess(Cli.environment(), "info");
        assertEquals(0, r.code(), r::toString);
        assertTrue(r.out().endsWith("warnings    none\n"), r::toString);
    }

    @Test
    void anInterfaceFilterThatMatchesNothingIsReportedNotFatal() {
        Cli.Result r = Cli.inProcess(Cli.environment("JCCL_SOCKET_IFNAME", "=nosuch0"), "info");
        assertEquals(0, r.code(), r::toString);
        assertTrue(
                r.out().contains("interface   none: SOCKET_IFNAME='=nosuch0' matches no usable interface"),
                r::toString);
    }

    @Test
    void aMalformedVariableIsNamed() {
        Cli.Result r = Cli.inProcess(Cli.environment("JCCL_BUFFSIZE", "lots"), "info");
        assertEquals(1, r.code(), r::toString);
        assertEquals("jccl info: JCCL_BUFFSIZE='lots' is not an integer\n", r.err());
    }

    @Test
    void jsonHoldsTheSameReport() throws Exception {
        String awkward = "a\"b\\c\nd\te\u0001f";
        Cli.Result r = Cli.inProcess(
                Cli.environment("JCCL_SOCKET_IFNAME", "lo", "JCCL_DEBUG_SUBSYS", awkward, "JCCL_TIMOUT", "5"),
                "info",
                "--json");
        assertEquals(0, r.code(), r::toString);

        JsonNode json = new ObjectMapper().readTree(r.out());
        assertEquals(Jccl.version(), json.get("version").asText());
        assertEquals(
                Runtime.version().toString(), json.get("java").get("version").asText());
        assertEquals(HostReport.readHostName(), json.get("host").asText());
        JsonNode iface = json.get("interface");
        assertEquals("lo", iface.get("filter").asText());
        assertEquals("JCCL_SOCKET_IFNAME", iface.get("filterSource").asText());
        assertEquals("lo", iface.get("selected").get("name").asText());
        assertEquals("127.0.0.1", iface.get("selected").get("address").asText());
        assertTrue(iface.get("error").isNull());
        assertTrue(iface.get("candidates").size() >= 1);

        List<String> transports = new ArrayList<>();
        for (JsonNode t : json.get("transports")) {
            transports.add(t.get("name").asText() + "=" + t.get("available").asBoolean() + ":"
                    + t.get("detail").asText());
        }
        assertEquals(4, transports.size(), transports.toString());
        assertEquals("tcp=true:available", transports.get(0));
        assertTrue(transports.get(1).startsWith("shm=true:available (/dev/shm, "), transports.toString());
        assertTrue(transports.get(2).startsWith("ucx=true:UCX 1."), transports.toString());
        // No GPU in CI: the cuda entry says why (no libcudart, no driver, no device); on a GPU machine it names CUDA
        // and the path.
        assertTrue(
                transports.get(3).startsWith("cuda=false:not available: ")
                        || transports.get(3).startsWith("cuda=true:CUDA "),
                transports.toString());

        JsonNode subsys = null;
        for (JsonNode row : json.get("config")) {
            if (row.get("name").asText().equals("debugSubsys")) subsys = row;
        }
        assertEquals(awkward, subsys.get("value").asText(), "escaping must round-trip");
        assertEquals("JCCL_DEBUG_SUBSYS", subsys.get("source").asText());
        assertEquals(
                19,
                json.get("config").size(),
                "every knob of Config.describe(), JCCL_CALIBRATION and JCCL_SHM_SINGLE_COPY included");
        boolean traceBuffer = false;
        for (JsonNode row : json.get("config")) {
            if (row.get("name").asText().equals("traceBuffer")) {
                traceBuffer = row.get("value").asText().equals("2048 operations");
            }
        }
        assertTrue(traceBuffer, json::toString);
        assertEquals(
                "unknown variable JCCL_TIMOUT (did you mean JCCL_TIMEOUT?)",
                json.get("warnings").get(0).asText());
    }

    @Test
    void ucxIsFoundAsAPluginAndSaysWhetherJcclNetSelectsIt() {
        // The jccl tool carries the jccl-ucx module, and .ci/run installs libucx0, so UCX can run here.
        Config unset = Config.fromEnvironment(java.util.Map.of());
        HostReport.TransportStatus plain = HostReport.ucx(unset);
        assertTrue(plain.available(), plain.detail());
        assertTrue(plain.detail().contains("not selected (TCP is the default"), plain.detail());
        HostReport.TransportStatus chosen = HostReport.ucx(Config.fromEnvironment(java.util.Map.of("NCCL_NET", "IB")));
        assertTrue(chosen.detail().endsWith("selected by JCCL_NET=IB between hosts"), chosen.detail());
    }

    /** A row of the configuration table: the three cells in order, separated by spaces only. */
    private static boolean row(String out, String name, String value, String source) {
        return Pattern.compile(
                        "^  " + Pattern.quote(name) + " +" + Pattern.quote(value) + " +" + Pattern.quote(source) + "$",
                        Pattern.MULTILINE)
                .matcher(out)
                .find();
    }
}
