/**
 * The {@code jccl} command: {@code run}, {@code perf}, {@code doctor}, {@code trace}, {@code info} and the rest. An
 * application, not an API: it exports nothing; picocli and Jackson reach its option and report classes by reflection.
 */
module dev.jccl.tools {
    requires dev.jccl.core;
    requires dev.jccl.cuda;
    requires info.picocli;
    requires com.fasterxml.jackson.databind;
    requires org.knowm.xchart;
    // XChart draws through AWT; plots are written with ImageIO.
    requires java.desktop;
    // perf's JIT-activity note reads the compilation MXBean.
    requires java.management;

    opens dev.jccl.tools to
            info.picocli;
    opens dev.jccl.tools.doctor to
            info.picocli,
            com.fasterxml.jackson.databind;
    opens dev.jccl.tools.perf to
            info.picocli,
            com.fasterxml.jackson.databind;
    opens dev.jccl.tools.trace to
            info.picocli,
            com.fasterxml.jackson.databind;
}
