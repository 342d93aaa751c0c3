package dev.jccl.tools.doctor;

/** What open(2) of a device node gives this process; the word is what {@code _doctor/devperm} stores. */
enum DeviceAccess {
    /** Opens read-write, as verbs needs. */
    RW("rw"),
    /** Opens read-only only. */
    RO("ro"),
    /** Exists but cannot be opened (permissions, or the container's device cgroup). */
    NONE("none"),
    /** Not there at all. */
    ABSENT("absent");

    final String word;

    DeviceAccess(String word) {
        this.word = word;
    }

    boolean usable() {
        return this == RW;
    }

    static DeviceAccess ofWord(String word) {
        for (DeviceAccess a : values()) {
            if (a.word.equals(word)) return a;
        }
        throw new IllegalArgumentException("_doctor/devperm: '" + word + "' is not rw, ro or none");
    }
}
