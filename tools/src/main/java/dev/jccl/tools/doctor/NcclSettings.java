package dev.jccl.tools.doctor;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The {@code NCCL_*} settings NCCL would see: the environment, then its config files ({@code /etc/nccl.conf},
 * {@code ~/.nccl.conf}, {@code $NCCL_CONF_FILE}, lines {@code NAME=VALUE}), which do not override a variable already
 * set.
 */
final class NcclSettings {
    /** One setting and where it came from ({@code env} or a file's path). */
    record Setting(String name, String value, String source) {
        String evidenceSource() {
            return source.equals("env") ? "env " + name : source + " " + name;
        }
    }

    private NcclSettings() {}

    static List<Setting> read(HostFacts facts) {
        Map<String, Setting> out = new LinkedHashMap<>();
        List<String> names = new ArrayList<>(facts.environment().keySet());
        names.sort(null);
        for (String name : names) {
            if (name.startsWith("NCCL_")) {
                out.put(name, new Setting(name, facts.environment().get(name), "env"));
            }
        }
        for (String file : configFiles(facts)) {
            for (String line : facts.files().lines(file)) {
                String l = line.strip();
                if (l.isEmpty() || l.startsWith("#") || !l.contains("=")) continue;
                String name = l.substring(0, l.indexOf('=')).strip();
                if (name.startsWith("NCCL_")) {
                    out.putIfAbsent(
                            name,
                            new Setting(name, l.substring(l.indexOf('=') + 1).strip(), file));
                }
            }
        }
        return new ArrayList<>(out.values());
    }

    /** The config files that exist. */
    static List<String> configFiles(HostFacts facts) {
        List<String> candidates = new ArrayList<>();
        candidates.add("/etc/nccl.conf");
        String home = facts.env("HOME");
        if (home != null) candidates.add(HostFiles.join(home, ".nccl.conf"));
        String conf = facts.env("NCCL_CONF_FILE");
        if (conf != null) candidates.add(conf);
        List<String> existing = new ArrayList<>();
        for (String c : candidates) {
            if (!existing.contains(c) && facts.files().exists(c)) existing.add(c);
        }
        return existing;
    }

    /** The effective value of one setting, or null. */
    static String value(List<Setting> settings, String name) {
        for (Setting s : settings) {
            if (s.name().equals(name)) {
                return s.value() == null ? null : s.value().trim();
            }
        }
        return null;
    }
}
