package dev.jccl.tools;

import dev.jccl.Config;
import dev.jccl.Jccl;
import dev.jccl.plan.CalibrationFile;
import java.time.Instant;
import java.util.Map;

/** The calibration file as the tools read it: the one a communicator started with this environment would read. */
final class Calibrations {
    private Calibrations() {}

    static CalibrationFile.Loaded load(Config config, Map<String, String> env) {
        return CalibrationFile.load(
                config.calibration(), env, CalibrationFile.Fingerprint.here(Jccl.version()), Instant.now());
    }
}
