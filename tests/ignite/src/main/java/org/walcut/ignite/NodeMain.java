package org.walcut.ignite;

import java.io.BufferedReader;
import java.io.File;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.lang.reflect.Field;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.apache.ignite.Ignite;
import org.apache.ignite.Ignition;
import org.apache.ignite.internal.IgniteEx;

/**
 * One server node in a JVM of its own, for scenarios that kill a node's JVM. Started by the harness;
 * talks to it over stdin/stdout:
 * prints "READY", then "INCREMENT &lt;uuid&gt;" each time the node takes up an incremental snapshot request;
 * on the line "stop" (or the end of stdin) it stops the node cleanly and exits.
 */
public final class NodeMain {
    private NodeMain() {
    }

    public static void main(String[] args) throws Exception {
        String scenario = null;
        String runDir = null;
        String id = null;
        int disco = 0;
        int comm = 0;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--scenario": scenario = args[++i]; break;
                case "--run-dir": runDir = args[++i]; break;
                case "--id": id = args[++i]; break;
                case "--disco-port": disco = Integer.parseInt(args[++i]); break;
                case "--comm-port": comm = Integer.parseInt(args[++i]); break;
                default: throw new IllegalArgumentException(args[i]);
            }
        }
        Scenario sc = Scenario.byName(scenario);
        for (Map.Entry<String, String> e : sc.systemProperties.entrySet())
            System.setProperty(e.getKey(), e.getValue());

        PrintStream ctl = System.out;
        System.setOut(System.err);

        Cluster cluster = new Cluster(sc, new File(runDir), disco, comm);
        Ignite ig = Ignition.start(cluster.config(id, false));
        ctl.println("READY " + ig.cluster().localNode().id());
        ctl.flush();

        Object mgr = ((IgniteEx)ig).context().cache().context().snapshotMgr();
        Field f = mgr.getClass().getDeclaredField("incSnpId");
        f.setAccessible(true);
        Thread watch = new Thread(() -> {
            Object last = null;
            while (!Thread.currentThread().isInterrupted()) {
                try {
                    Object cur = f.get(mgr);
                    if (cur != null && !cur.equals(last)) {
                        ctl.println("INCREMENT " + cur);
                        ctl.flush();
                    }
                    last = cur;
                    Thread.sleep(1);
                }
                catch (InterruptedException e) {
                    return;
                }
                catch (IllegalAccessException e) {
                    throw new IllegalStateException(e);
                }
            }
        }, "increment-watch");
        watch.setDaemon(true);
        watch.start();

        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = in.readLine()) != null) {
            if (line.trim().equals("stop"))
                break;
        }
        watch.interrupt();
        Ignition.stop(id, false);
        ctl.println("STOPPED");
        ctl.flush();
        System.exit(0);
    }
}
