package dev.jccl.cuda;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.Comparator;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.opentest4j.TestAbortedException;

/**
 * Runs {@link GpuTest} without Maven or a JUnit launcher, for a GPU machine that has only a Java runtime and the jars
 * ({@code cuda/gpu/run.sh}): each test method in turn, printed as PASS, SKIP (with the assumption's message) or FAIL
 * (with the stack trace); exit code 1 if any failed.
 */
public final class GpuTestMain {
    private GpuTestMain() {}

    public static void main(String[] args) throws Exception {
        int passed = 0;
        int skipped = 0;
        int failed = 0;
        Method[] methods = GpuTest.class.getDeclaredMethods();
        Arrays.sort(methods, Comparator.comparing(Method::getName));
        for (Method m : methods) {
            if (!m.isAnnotationPresent(Test.class)) continue;
            long start = System.nanoTime();
            try {
                Object test = instance();
                for (Method before : GpuTest.class.getDeclaredMethods()) {
                    if (before.isAnnotationPresent(BeforeEach.class)) invoke(before, test);
                }
                invoke(m, test);
                passed++;
                System.out.printf("PASS %s (%.1f s)%n", m.getName(), (System.nanoTime() - start) / 1e9);
            } catch (TestAbortedException e) {
                skipped++;
                System.out.println("SKIP " + m.getName() + ": " + e.getMessage());
            } catch (Throwable t) {
                failed++;
                System.out.println("FAIL " + m.getName() + ":");
                t.printStackTrace(System.out);
            }
        }
        System.out.printf("GPU tests: %d passed, %d skipped, %d failed%n", passed, skipped, failed);
        System.exit(failed == 0 ? 0 : 1);
    }

    private static Object instance() throws ReflectiveOperationException {
        var c = GpuTest.class.getDeclaredConstructor();
        c.setAccessible(true);
        return c.newInstance();
    }

    private static void invoke(Method m, Object target) throws Throwable {
        m.setAccessible(true);
        try {
            m.invoke(target);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }
}
