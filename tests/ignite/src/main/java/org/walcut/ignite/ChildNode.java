package org.walcut.ignite;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.PrintStream;
import java.io.Writer;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/** A server node in a JVM of its own (NodeMain), which the harness can kill with SIGKILL. */
final class ChildNode {
    final String id;

    private final Process proc;

    private final Writer stdin;

    private final CountDownLatch ready = new CountDownLatch(1);

    /** Set when the node's JVM is to be killed as soon as it takes up an increment request. */
    volatile boolean killOnIncrement;

    /** Wall-clock time of the kill, 0 while the process lives or was not killed. */
    volatile long killedAt;

    /** The request id the node reported last. */
    volatile String lastIncrement;

    volatile long lastIncrementAt;

    ChildNode(String id, String scenario, Cluster cluster, File log, PrintStream harnessLog) throws IOException {
        this.id = id;
        List<String> cmd = new ArrayList<>();
        cmd.add(new File(System.getProperty("java.home"), "bin/java").getPath());
        cmd.addAll(ManagementFactory.getRuntimeMXBean().getInputArguments());
        if (System.getProperty("IGNITE_HOME") != null)
            cmd.add("-DIGNITE_HOME=" + System.getProperty("IGNITE_HOME"));
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(NodeMain.class.getName());
        cmd.addAll(List.of("--scenario", scenario, "--run-dir", cluster.runDir.getAbsolutePath(), "--id", id,
            "--disco-port", String.valueOf(cluster.discoPort()), "--comm-port", String.valueOf(cluster.commPort())));
        ProcessBuilder pb = new ProcessBuilder(cmd);
        pb.redirectError(ProcessBuilder.Redirect.appendTo(log));
        pb.directory(cluster.runDir);
        proc = pb.start();
        stdin = new OutputStreamWriter(proc.getOutputStream(), StandardCharsets.UTF_8);
        Thread reader = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(proc.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                    if (line.startsWith("INCREMENT ")) {
                        if (killOnIncrement) {
                            proc.destroyForcibly();
                            killedAt = System.currentTimeMillis();
                            killOnIncrement = false;
                        }
                        lastIncrement = line.substring("INCREMENT ".length()).trim();
                        lastIncrementAt = System.currentTimeMillis();
                    }
                    harnessLog.println("[" + id + "] " + line);
                    if (line.startsWith("READY"))
                        ready.countDown();
                }
            }
            catch (IOException ignored) {
                // The process is gone.
            }
        }, "child-" + id);
        reader.setDaemon(true);
        reader.start();
    }

    void awaitReady(long timeoutMs) throws InterruptedException {
        if (!ready.await(timeoutMs, TimeUnit.MILLISECONDS))
            throw new IllegalStateException("node " + id + " did not start in " + timeoutMs + " ms");
    }

    void kill() {
        proc.destroyForcibly();
        if (killedAt == 0)
            killedAt = System.currentTimeMillis();
    }

    boolean awaitExit(long timeoutMs) throws InterruptedException {
        return proc.waitFor(timeoutMs, TimeUnit.MILLISECONDS);
    }

    int exitValue() {
        return proc.exitValue();
    }

    /** Stops the node cleanly. */
    void stop(long timeoutMs) throws IOException, InterruptedException {
        if (proc.isAlive()) {
            stdin.write("stop\n");
            stdin.flush();
        }
        if (!proc.waitFor(timeoutMs, TimeUnit.MILLISECONDS))
            throw new IllegalStateException("node " + id + " did not stop in " + timeoutMs + " ms");
    }
}
