package org.walcut.ignite;

import java.io.File;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.ObjectInputStream;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.lang.reflect.Field;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.apache.ignite.Ignite;
import org.apache.ignite.IgniteLogger;
import org.apache.ignite.Ignition;
import org.apache.ignite.cache.CacheAtomicityMode;
import org.apache.ignite.cache.CacheWriteSynchronizationMode;
import org.apache.ignite.cache.affinity.rendezvous.RendezvousAffinityFunction;
import org.apache.ignite.cluster.ClusterNode;
import org.apache.ignite.configuration.CacheConfiguration;
import org.apache.ignite.internal.IgniteEx;
import org.apache.ignite.internal.management.cache.IdleVerifyResultV2;
import org.apache.ignite.internal.processors.cache.persistence.snapshot.IgniteSnapshotManager;
import org.apache.ignite.internal.processors.cache.persistence.snapshot.IncrementalSnapshotMetadata;
import org.apache.ignite.internal.processors.cache.persistence.snapshot.SnapshotMetadata;
import org.apache.ignite.internal.processors.cache.persistence.wal.reader.IgniteWalIteratorFactory;
import org.apache.ignite.internal.processors.cache.version.GridCacheVersion;
import org.apache.ignite.internal.processors.cluster.BaselineTopology;
import org.apache.ignite.internal.util.typedef.internal.CU;
import org.apache.ignite.lang.IgniteFuture;

/**
 * Runs one scenario on a real Apache Ignite cluster (all nodes in this JVM) and writes into OUTDIR:
 * nodes/&lt;consistentId&gt;/work (each node's work directory as Ignite left it), nodes/&lt;consistentId&gt;/ignite-records.jsonl
 * (Ignite's own reading of every WAL segment of that node), truth.json and harness.log.
 * The format is described in tests/ignite/README.md.
 */
public final class Harness {
    static final String IGNITE_VERSION = "2.17.0";

    private final Scenario sc;
    private final long seed;
    private final File out;
    private final boolean keepRun;
    private final PrintStream console;
    private final PrintStream logFile;
    private final long t0 = System.currentTimeMillis();
    private final Map<String, Object> timing = new LinkedHashMap<>();

    private Cluster cluster;
    private Workload wl;
    private final Map<String, Ignite> nodes = new LinkedHashMap<>();

    /** The last server, when the scenario runs it in a JVM of its own. */
    private ChildNode child;
    private final List<Object> faults = new ArrayList<>();
    private final List<Map<String, Object>> increments = new ArrayList<>();

    private Harness(Scenario sc, long seed, File out, boolean keepRun, PrintStream console, PrintStream logFile) {
        this.sc = sc;
        this.seed = seed;
        this.out = out;
        this.keepRun = keepRun;
        this.console = console;
        this.logFile = logFile;
    }

    public static void main(String[] args) throws Exception {
        if (args.length > 0 && args[0].equals("read-wal")) {  // tests/bench/dump_vs_ignite.sh
            WalReadBench.main(java.util.Arrays.copyOfRange(args, 1, args.length));
            return;
        }
        if (args.length > 0 && args[0].equals("load-rows")) {  // the README's example (LoadRows)
            LoadRows.main(java.util.Arrays.copyOfRange(args, 1, args.length));
            return;
        }
        if (args.length > 0 && args[0].equals("time-ops")) {  // tests/bench/snapshot_bench.sh
            System.exit(timeOps(java.util.Arrays.copyOfRange(args, 1, args.length)));
            return;
        }
        if (args.length > 0 && args[0].equals("check-increments")) {  // tests/ignite/add_increment_checks.py
            System.exit(checkIncrements(java.util.Arrays.copyOfRange(args, 1, args.length)));
            return;
        }
        String scenario = null;
        Long seed = null;
        String outDir = null;
        boolean keepRun = false;
        boolean force = false;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--scenario": scenario = args[++i]; break;
                case "--seed": seed = Long.parseLong(args[++i]); break;
                case "-o": case "--out": outDir = args[++i]; break;
                case "--keep-run": keepRun = true; break;
                case "--force": force = true; break;
                default:
                    System.err.println("unknown argument: " + args[i]);
                    usage();
            }
        }
        if (scenario == null || seed == null || outDir == null)
            usage();

        Scenario sc = Scenario.byName(scenario);
        for (Map.Entry<String, String> e : sc.systemProperties.entrySet())
            System.setProperty(e.getKey(), e.getValue());
        File out = new File(outDir).getAbsoluteFile();
        if (out.exists()) {
            String[] existing = out.list();
            if (existing != null && existing.length > 0) {
                if (!force) {
                    System.err.println("harness: " + out + " is not empty (use --force to replace it)");
                    System.exit(2);
                }
                deleteTree(out.toPath());
            }
        }
        Files.createDirectories(out.toPath());

        PrintStream console = System.err;
        PrintStream logFile = isolate(new File(out, "run/ignite-home"), new File(out, "harness.log"));

        Harness h = new Harness(sc, seed, out, keepRun, console, logFile);
        int rc = 0;
        try {
            h.run();
        }
        catch (Throwable t) {
            t.printStackTrace(logFile);
            console.println("harness: FAILED: " + t);
            rc = 1;
        }
        finally {
            Ignition.stopAll(true);
        }
        console.flush();
        logFile.flush();
        System.exit(rc);
    }

    /**
     * Ignite's default work directory (under IGNITE_HOME, or the current directory, where a component
     * has none, as the standalone WAL reader does) kept in {@code home}, and this JVM's standard output
     * and error (Ignite's logging) sent to {@code log}, which is returned.
     */
    private static PrintStream isolate(File home, File log) throws IOException {
        Files.createDirectories(home.toPath());
        System.setProperty("IGNITE_HOME", home.getPath());
        PrintStream logFile = new PrintStream(new FileOutputStream(log), true, StandardCharsets.UTF_8);
        System.setOut(logFile);
        System.setErr(logFile);
        return logFile;
    }

    private static void usage() {
        System.err.println("usage: harness --scenario clean|failed-increment|node-stop|compacted|bench --seed N -o OUTDIR [--force] [--keep-run]");
        System.exit(2);
    }

    private void progress(String msg) {
        String line = String.format("[harness %6.1fs] %s", (System.currentTimeMillis() - t0) / 1000.0, msg);
        console.println(line);
        logFile.println(line);
    }

    private void mark(String what, long since) {
        timing.put(what, System.currentTimeMillis() - since);
    }

    private List<String> cacheNames() {
        return wl.caches();
    }

    /** What restoreSnapshot takes: the cache groups (a cache outside any group is its own). */
    private List<String> groupNames() {
        List<String> res = new ArrayList<>();
        for (String c : cacheNames()) {
            String g = c.equals(sc.blobsCache) || c.equals(sc.notesCache) ? sc.shelfGroup : c;
            if (!res.contains(g))
                res.add(g);
        }
        return res;
    }

    /** The snapshot whose increments are requested now (the second one once the victim is back). */
    private String currentSnapshot = null;

    private final List<Map<String, Object>> snapshots = new ArrayList<>();

    private final Map<String, Long> snapshotCreated = new LinkedHashMap<>();

    private ChildNode startChild() throws Exception {
        ChildNode c = new ChildNode(sc.victim(), sc.name, cluster, new File(out, "harness-" + sc.victim() + ".log"), logFile);
        c.awaitReady(120_000);
        return c;
    }

    private List<Ignite> servers() {
        List<Ignite> res = new ArrayList<>();
        for (int i = 0; i < sc.servers; i++) {
            Ignite ig = nodes.get(Scenario.serverId(i));
            if (ig != null)
                res.add(ig);
        }
        return res;
    }

    private Ignite crd() {
        return nodes.get(Scenario.serverId(0));
    }

    private void run() throws Exception {
        progress("scenario " + sc.name + ", seed " + seed + ", Ignite " + IGNITE_VERSION + ", output " + out);
        File runDir = new File(out, "run");
        cluster = new Cluster(sc, runDir);
        wl = new Workload(sc, seed, console);

        long t = System.currentTimeMillis();
        boolean separate = sc.faultKind.equals("kill");
        for (Ignite ig : cluster.startServers(separate ? sc.servers - 1 : sc.servers))
            nodes.put(ig.name(), ig);
        if (separate)
            child = startChild();
        Cluster.activate(crd());
        for (int i = 0; i < sc.clients; i++) {
            Ignite c = cluster.startClient(i);
            nodes.put(c.name(), c);
        }
        mark("start_cluster", t);
        progress("started " + sc.servers + " servers" + (separate ? " (" + sc.victim() + " in a JVM of its own)" : "")
            + " and " + sc.clients + " client(s)");

        Ignite client = nodes.get(Scenario.clientId(0));
        client.createCache(new CacheConfiguration<Object, Long>(sc.bankCache)
            .setAtomicityMode(CacheAtomicityMode.TRANSACTIONAL)
            .setBackups(sc.bankBackups)
            .setWriteSynchronizationMode(CacheWriteSynchronizationMode.FULL_SYNC)
            .setAffinity(new RendezvousAffinityFunction(false, sc.bankPartitions)));
        client.createCache(new CacheConfiguration<Integer, Account>(sc.vaultCache)
            .setAtomicityMode(CacheAtomicityMode.TRANSACTIONAL)
            .setBackups(sc.vaultBackups)
            .setWriteSynchronizationMode(CacheWriteSynchronizationMode.FULL_SYNC)
            .setAffinity(new RendezvousAffinityFunction(false, sc.vaultPartitions)));
        if (sc.extras)
            createExtraCaches(client);

        t = System.currentTimeMillis();
        wl.load(client, Scenario.clientId(0));
        wl.loadExtras(client, Scenario.clientId(0));
        mark("load", t);
        progress("loaded " + (sc.bankAccounts + sc.vaultAccounts) + " accounts, total " + wl.initialTotal);

        if (sc.warmupTx > 0) {
            t = System.currentTimeMillis();
            wl.warmUp(client, Scenario.clientId(0), sc.warmupTx);
            mark("warmup", t);
            progress("history before the full snapshot: " + sc.warmupTx + " transfers");
        }
        t = System.currentTimeMillis();
        fullSnapshot(sc.snapshotName);
        mark("full_snapshot", t);

        t = System.currentTimeMillis();
        List<Thread> workers = wl.start(nodes);
        for (int k = 1; k <= sc.increments; k++) {
            if (!wl.half[k].await(10, TimeUnit.MINUTES))
                throw new IllegalStateException("workers did not reach the middle of phase " + k);
            increments.add(increment(k));
            wl.resume[k].countDown();
            wl.gate[k].countDown();
        }
        for (Thread th : workers)
            th.join();
        mark("workload_and_increments", t);
        progress("workload done: " + wl.txCount.get() + " transactions");

        Map<String, Object> finalBalances = wl.readAll(client);
        progress("final total " + finalBalances.get("total") + " (initial " + wl.initialTotal + ")");

        List<Object> nodeInfo = nodeInfo();

        t = System.currentTimeMillis();
        for (int i = 0; i < sc.clients; i++)
            stopNode(Scenario.clientId(i), false);
        if (child != null) {
            child.stop(60_000);
            child = null;
        }
        for (int i = sc.servers - 1; i >= 0; i--) {
            if (nodes.containsKey(Scenario.serverId(i)))
                stopNode(Scenario.serverId(i), false);
        }
        mark("stop_cluster", t);

        t = System.currentTimeMillis();
        for (int i = 0; i < sc.servers; i++) {
            String id = Scenario.serverId(i);
            copyTree(cluster.workDir(id).toPath(), new File(out, "nodes/" + id + "/work").toPath());
        }
        mark("capture", t);
        progress("work directories captured under " + new File(out, "nodes"));

        for (Map.Entry<String, Long> e : snapshotCreated.entrySet())
            snapshots.add(snapshotInfo(e.getKey(), e.getValue()));
        Map<String, Object> snapshot = snapshots.get(0);
        incrementMetadata();

        t = System.currentTimeMillis();
        Map<String, Object> recordsPerType = new TreeMap<>();
        Map<String, Object> readerFiles = new TreeMap<>();
        Map<String, Object> recordsPerTypeAllFiles = new TreeMap<>();
        IgniteLogger walLog = IgniteWalIteratorFactory.ConsoleLogger.INSTANCE;
        for (int i = 0; i < sc.servers && !sc.walOnly && !sc.timings; i++) {
            String id = Scenario.serverId(i);
            File work = new File(out, "nodes/" + id + "/work");
            WalDump d = new WalDump(walLog);
            d.readerWorkDir = new File(runDir, "wal-reader");
            d.dumpNode(work, folderOf(id), new File(out, "nodes/" + id + "/ignite-records.jsonl"));
            recordsPerType.put(id, d.perType);
            recordsPerTypeAllFiles.put(id, d.perTypeAllFiles);
            readerFiles.put(id, d.files);
        }
        mark("read_wal", t);
        StringBuilder summary = new StringBuilder();
        for (Map.Entry<String, Object> e : recordsPerType.entrySet()) {
            int n = 0;
            for (Object v : ((Map<?, ?>)e.getValue()).values())
                n += (Integer)v;
            summary.append(summary.length() == 0 ? "" : ", ").append(e.getKey()).append(' ').append(n);
        }
        progress("WAL read by Ignite's standalone iterator, records per node: " + summary);

        t = System.currentTimeMillis();
        if (!sc.walOnly)
            restores();
        mark("restores", t);

        Map<String, Object> truth = new LinkedHashMap<>();
        truth.put("schema", 1);
        truth.put("ignite_version", IGNITE_VERSION);
        truth.put("scenario", scenarioInfo());
        truth.put("nodes", nodeInfo);
        truth.put("snapshot", snapshot);
        truth.put("snapshots", snapshots);
        truth.put("increments", increments);
        truth.put("transactions", wl.txLog);
        truth.put("final_balances", finalBalances);
        truth.put("records_per_type", recordsPerType);
        truth.put("records_per_type_all_files", recordsPerTypeAllFiles);
        truth.put("reader_files", readerFiles);
        timing.put("total", System.currentTimeMillis() - t0);
        truth.put("timing_ms", timing);
        Files.writeString(new File(out, "truth.json").toPath(), Json.pretty(truth), StandardCharsets.UTF_8);

        if (!keepRun)
            deleteTree(runDir.toPath());
        progress("done: " + new File(out, "truth.json"));
    }

    private void stopNode(String id, boolean cancel) {
        Ignition.stop(id, cancel);
        nodes.remove(id);
    }

    private static Object field(Object o, String name) throws ReflectiveOperationException {
        for (Class<?> c = o.getClass(); c != null; c = c.getSuperclass()) {
            try {
                Field f = c.getDeclaredField(name);
                f.setAccessible(true);
                return f.get(o);
            }
            catch (NoSuchFieldException ignored) {
                // Try the superclass.
            }
        }
        throw new NoSuchFieldException(name);
    }

    private static Object snpMgr(Ignite ig) {
        return ((IgniteEx)ig).context().cache().context().snapshotMgr();
    }

    /** One attempt to create an increment; with a fault when the scenario asks for one at this attempt. */
    private Map<String, Object> increment(int attempt) throws Exception {
        if (attempt == sc.downAttempt)
            killVictim(attempt);
        Map<String, Object> inc = Json.obj("attempt", attempt, "snapshot", currentSnapshot, "index", null, "ok", false,
            "error", null, "request_id", null);
        boolean fault = sc.faults.containsKey(attempt);
        long t = System.currentTimeMillis();
        progress("increment attempt " + attempt + (fault ? " (a server is stopped while it runs"
            + (sc.paused(attempt) ? "; workers paused until it is back)" : ", under load)") : "")
            + ", transactions so far " + wl.txCount.get());

        IgniteFuture<Void> fut = crd().snapshot().createIncrementalSnapshot(currentSnapshot);
        try {
            Object f = field(snpMgr(crd()), "lastSeenIncSnpFut");
            if (f != null) {
                Object rq = field(f, "rqId");
                Object idx = field(f, "incIdx");
                inc.put("request_id", rq == null ? null : rq.toString());
                inc.put("index", idx instanceof Integer && (Integer)idx > 0 ? idx : null);
            }
        }
        catch (ReflectiveOperationException e) {
            progress("request id not reachable: " + e);
        }

        Map<String, Object> faultRec = null;
        if (fault)
            faultRec = child != null ? killVictimDuring(attempt, fut) : stopVictimDuring(attempt, fut);

        try {
            fut.get(5, TimeUnit.MINUTES);
            inc.put("ok", true);
        }
        catch (Exception e) {
            inc.put("error", message(e));
            List<Object> chain = new ArrayList<>();
            for (Throwable c = e; c != null && chain.size() < 8; c = c.getCause())
                chain.add(c.getClass().getName() + ": " + c.getMessage());
            inc.put("error_chain", chain);
        }
        inc.put("duration_ms", System.currentTimeMillis() - t);
        inc.put("transactions_before", wl.txCount.get());
        progress("increment attempt " + attempt + ": " + (Boolean.TRUE.equals(inc.get("ok"))
            ? "ok, index " + inc.get("index") : "FAILED: " + inc.get("error")));

        if (faultRec != null) {
            long r = System.currentTimeMillis();
            if (child != null)
                child = startChild();
            else {
                Ignite v = cluster.startServer(sc.servers - 1);
                nodes.put(v.name(), v);
            }
            Cluster.awaitOwning(servers(), cacheNames(), sc.servers, 120_000);
            faultRec.put("restarted_ms_after_stop", System.currentTimeMillis() - (long)faultRec.get("stopped_at_ms"));
            faultRec.put("restart_and_rebalance_ms", System.currentTimeMillis() - r);
            progress("restarted " + sc.victim() + "; every partition has all its owners again");
        }
        if (attempt == sc.downAttempt) {
            long r = System.currentTimeMillis();
            child = startChild();
            Cluster.awaitOwning(servers(), cacheNames(), sc.servers, 120_000);
            progress("restarted " + sc.victim() + " after the attempt and rebalanced in "
                + (System.currentTimeMillis() - r) + " ms");
            fullSnapshot(sc.snapshotName2);
        }
        return inc;
    }

    /** Takes a full snapshot; later increments are its own. */
    private void fullSnapshot(String name) throws Exception {
        crd().snapshot().createSnapshot(name).get(5, TimeUnit.MINUTES);
        snapshotCreated.put(name, System.currentTimeMillis());
        currentSnapshot = name;
        progress("full snapshot '" + name + "' created");
    }

    /** Kills the victim's JVM (SIGKILL) under load and waits until the others see it gone. */
    private void killVictim(int attempt) throws Exception {
        long start = System.currentTimeMillis();
        child.kill();
        if (!child.awaitExit(30_000))
            throw new IllegalStateException("the killed JVM of " + sc.victim() + " did not exit");
        while (crd().cluster().forServers().nodes().size() == sc.servers && System.currentTimeMillis() - start < 30_000)
            Thread.sleep(10);
        faults.add(Json.obj(
            "attempt", attempt,
            "kind", "jvm_kill_before",
            "node", sc.victim(),
            "how", "SIGKILL of the node's own JVM under load, before the attempt; started again after it",
            "stopped_at_ms", start,
            "workers_paused", false));
        progress("killed the JVM of " + sc.victim() + " before attempt " + attempt);
    }

    /** The cache configurations beyond bank and vault (Scenario.extras). */
    private void createExtraCaches(Ignite client) {
        client.createCache(new CacheConfiguration<Object, Object>(sc.blobsCache)
            .setGroupName(sc.shelfGroup)
            .setAtomicityMode(CacheAtomicityMode.TRANSACTIONAL)
            .setBackups(sc.shelfBackups)
            .setWriteSynchronizationMode(CacheWriteSynchronizationMode.FULL_SYNC)
            .setAffinity(new RendezvousAffinityFunction(false, sc.shelfPartitions)));
        client.createCache(new CacheConfiguration<Object, Object>(sc.notesCache)
            .setGroupName(sc.shelfGroup)
            .setAtomicityMode(CacheAtomicityMode.TRANSACTIONAL)
            .setBackups(sc.shelfBackups)
            .setWriteSynchronizationMode(CacheWriteSynchronizationMode.FULL_SYNC)
            .setAffinity(new RendezvousAffinityFunction(false, sc.shelfPartitions)));
        client.createCache(new CacheConfiguration<Object, Object>(sc.eventsCache)
            .setAtomicityMode(CacheAtomicityMode.ATOMIC)
            .setBackups(sc.eventsBackups)
            .setWriteSynchronizationMode(CacheWriteSynchronizationMode.FULL_SYNC)
            .setAffinity(new RendezvousAffinityFunction(false, sc.eventsPartitions)));
        if (sc.hasSolo()) {
            client.createCache(new CacheConfiguration<Object, Object>(sc.soloCache)
                .setAtomicityMode(CacheAtomicityMode.TRANSACTIONAL)
                .setBackups(0)
                .setWriteSynchronizationMode(CacheWriteSynchronizationMode.FULL_SYNC)
                .setAffinity(new RendezvousAffinityFunction(false, sc.soloPartitions)));
        }
    }

    private static String message(Throwable e) {
        Throwable c = e;
        while (c.getMessage() == null && c.getCause() != null)
            c = c.getCause();
        return c.getMessage();
    }

    /**
     * Kills the victim's JVM (SIGKILL) as soon as it reports that it has taken up the increment's
     * request (or after 5 s).
     */
    private Map<String, Object> killVictimDuring(int attempt, IgniteFuture<Void> fut) throws Exception {
        long start = System.currentTimeMillis();
        String rq = null;
        try {
            Object f = field(snpMgr(crd()), "lastSeenIncSnpFut");
            rq = f == null ? null : String.valueOf(field(f, "rqId"));
        }
        catch (ReflectiveOperationException ignored) {
            // Judged by time only.
        }
        child.killOnIncrement = true;
        while (child.killedAt == 0 && System.currentTimeMillis() - start < 5_000)
            Thread.sleep(1);
        boolean saw = child.killedAt != 0 && rq != null && rq.equals(child.lastIncrement);
        if (child.killedAt == 0)
            child.kill();
        if (!child.awaitExit(30_000))
            throw new IllegalStateException("the killed JVM of " + sc.victim() + " did not exit");
        long killedAt = child.killedAt;
        Map<String, Object> f = Json.obj(
            "attempt", attempt,
            "kind", "jvm_kill",
            "node", sc.victim(),
            "how", "SIGKILL of the node's own JVM (Process.destroyForcibly)",
            "victim_had_request", saw,
            "stopped_ms_after_request", killedAt - start,
            "exit_value", child.exitValue(),
            "stopped_at_ms", killedAt,
            "workers_paused", sc.paused(attempt));
        faults.add(f);
        progress("killed the JVM of " + sc.victim() + " (" + (saw ? "right after it took up the request" :
            "without it reporting the request") + ")");
        return f;
    }

    /** Stops the victim as soon as it has taken up the increment's request (or after 5 s). */
    private Map<String, Object> stopVictimDuring(int attempt, IgniteFuture<Void> fut) throws Exception {
        String victim = sc.victim();
        Ignite v = nodes.get(victim);
        Object mgr = snpMgr(v);
        long start = System.currentTimeMillis();
        boolean saw = false;
        while (System.currentTimeMillis() - start < 5_000 && !fut.isDone()) {
            if (field(mgr, "incSnpId") != null) {
                saw = true;
                break;
            }
            Thread.sleep(1);
        }
        long stoppedAt = System.currentTimeMillis();
        boolean doneBefore = fut.isDone();
        stopNode(victim, true);
        Map<String, Object> f = Json.obj(
            "attempt", attempt,
            "kind", "node_stop",
            "node", victim,
            "how", "Ignition.stop(name, cancel=true) in the harness JVM",
            "victim_had_request", saw,
            "increment_done_before_stop", doneBefore,
            "stopped_ms_after_request", stoppedAt - start,
            "stop_took_ms", System.currentTimeMillis() - stoppedAt,
            "stopped_at_ms", stoppedAt,
            "workers_paused", sc.paused(attempt));
        faults.add(f);
        progress("stopped " + victim + " (" + (saw ? "after it took up the request" : "without seeing the request")
            + ")");
        return f;
    }

    private String folderOf(String consId) {
        return consId.replaceAll("[^a-zA-Z0-9]", "_");
    }

    private List<Object> nodeInfo() throws Exception {
        BaselineTopology blt = ((IgniteEx)crd()).context().state().clusterState().baselineTopology();
        Map<Object, Short> compact = blt == null ? Map.of() : blt.consistentIdMapping();
        List<Object> res = new ArrayList<>();
        for (int i = 0; i < sc.servers; i++) {
            String id = Scenario.serverId(i);
            ClusterNode n = null;
            for (ClusterNode cn : crd().cluster().forServers().nodes())
                if (id.equals(String.valueOf(cn.consistentId())))
                    n = cn;
            if (n == null)
                throw new IllegalStateException(id + " is not in the topology");
            String folder = folderOf(id);
            Ignite ig = nodes.get(id);
            if (ig != null) {
                folder = ((IgniteEx)ig).context().pdsFolderResolver().resolveFolders().folderName();
                if (!folder.equals(folderOf(id)))
                    throw new IllegalStateException("folder of " + id + " is " + folder);
            }
            res.add(Json.obj(
                "consistent_id", id,
                "folder", folder,
                "node_id", n.id().toString(),
                "order", n.order(),
                "compact_id", compact.get(id),
                "work_dir", "nodes/" + id + "/work"));
        }
        return res;
    }

    private Map<String, Object> scenarioInfo() {
        List<Object> caches = new ArrayList<>();
        caches.add(Json.obj("name", sc.bankCache, "cache_id", CU.cacheId(sc.bankCache), "group_id", CU.cacheId(sc.bankCache),
            "partitions", sc.bankPartitions, "backups", sc.bankBackups, "atomicity", "TRANSACTIONAL",
            "key_types", List.of("int", "long", "string"), "value_type", "java.lang.Long"));
        caches.add(Json.obj("name", sc.vaultCache, "cache_id", CU.cacheId(sc.vaultCache), "group_id", CU.cacheId(sc.vaultCache),
            "partitions", sc.vaultPartitions, "backups", sc.vaultBackups, "atomicity", "TRANSACTIONAL",
            "key_types", List.of("int"), "value_type", Account.class.getName()));
        if (sc.extras) {
            int shelf = CU.cacheId(sc.shelfGroup);
            caches.add(Json.obj("name", sc.blobsCache, "cache_id", CU.cacheId(sc.blobsCache), "group_id", shelf,
                "group", sc.shelfGroup, "partitions", sc.shelfPartitions, "backups", sc.shelfBackups,
                "atomicity", "TRANSACTIONAL", "key_types", List.of(BlobKey.class.getName()), "value_type", "byte[]"));
            caches.add(Json.obj("name", sc.notesCache, "cache_id", CU.cacheId(sc.notesCache), "group_id", shelf,
                "group", sc.shelfGroup, "partitions", sc.shelfPartitions, "backups", sc.shelfBackups,
                "atomicity", "TRANSACTIONAL", "key_types", List.of("string"), "value_type", "java.lang.String"));
            caches.add(Json.obj("name", sc.eventsCache, "cache_id", CU.cacheId(sc.eventsCache), "group_id",
                CU.cacheId(sc.eventsCache), "partitions", sc.eventsPartitions, "backups", sc.eventsBackups,
                "atomicity", "ATOMIC", "key_types", List.of("long"), "value_type", "java.lang.String"));
            if (sc.hasSolo()) {
                caches.add(Json.obj("name", sc.soloCache, "cache_id", CU.cacheId(sc.soloCache), "group_id",
                    CU.cacheId(sc.soloCache), "partitions", sc.soloPartitions, "backups", 0,
                    "atomicity", "TRANSACTIONAL", "key_types", List.of("int"), "value_type", "java.lang.Long"));
            }
        }
        int attempted = 0;
        for (Map<String, Object> tx : wl.txLog)
            if (!"load".equals(tx.get("kind")))
                attempted++;
        return Json.obj(
            "name", sc.name,
            "seed", seed,
            "servers", sc.servers,
            "clients", sc.clients,
            "workers", sc.workers,
            "caches", caches,
            "accounts", sc.bankAccounts + sc.vaultAccounts,
            "initial_total", wl.initialTotal,
            "txs_attempted", attempted,
            "tx_per_phase_per_worker", sc.txPerPhase,
            "think_ms", sc.thinkMs,
            "in_tx_pause_ms", sc.inTxPauseMs,
            "increments_requested", sc.increments,
            "fault_kind", sc.faults.isEmpty() ? null : sc.faultKind,
            "faults", faults,
            "wal_segment_size", sc.walSegmentSize,
            "wal_segments", sc.walSegments,
            "wal_compaction", sc.walCompaction,
            "max_wal_archive_size", sc.maxWalArchiveSize,
            "checkpoint_frequency_ms", sc.checkpointFrequencyMs,
            "page_size", 4096,
            "system_properties", sc.systemProperties);
    }

    private static Object readSerialized(File f) throws IOException, ClassNotFoundException {
        try (InputStream in = new FileInputStream(f); ObjectInputStream ois = new ObjectInputStream(in)) {
            return ois.readObject();
        }
    }

    private Map<String, Object> snapshotInfo(String name, long created) throws Exception {
        Map<String, Object> perNode = new LinkedHashMap<>();
        for (int i = 0; i < sc.servers; i++) {
            String id = Scenario.serverId(i);
            File smf = new File(out, "nodes/" + id + "/work/snapshots/" + name + "/" + folderOf(id) + ".smf");
            Map<String, Object> m = Json.obj("smf", "nodes/" + id + "/work/snapshots/" + name + "/" + smf.getName());
            try {
                SnapshotMetadata meta = (SnapshotMetadata)readSerialized(smf);
                m.put("request_id", meta.requestId().toString());
                m.put("snapshot_record", WalDump.ptr(meta.snapshotRecordPointer()));
                m.put("snapshot_time", meta.snapshotTime());
            }
            catch (Exception e) {
                m.put("error", e.toString());
            }
            perNode.put(id, m);
        }
        return Json.obj("name", name, "created_ms", created, "nodes", perNode);
    }

    /**
     * Adds each node's increment metadata (.smf) to the attempts that got an index, where the node holds
     * an increment directory of that index made by that request (a failed attempt can leave some behind).
     */
    private void incrementMetadata() {
        for (Map<String, Object> inc : increments) {
            if (inc.get("index") == null)
                continue;
            int idx = (Integer)inc.get("index");
            Map<String, Object> perNode = new LinkedHashMap<>();
            for (int i = 0; i < sc.servers; i++) {
                String id = Scenario.serverId(i);
                String rel = String.format("nodes/%s/work/snapshots/%s/increments/%016d/%s.smf", id, inc.get("snapshot"),
                    idx, folderOf(id));
                Map<String, Object> m = Json.obj("smf", rel);
                if (!new File(out, rel).exists()) {
                    m.put("smf", null);
                    perNode.put(id, m);
                    continue;
                }
                try {
                    IncrementalSnapshotMetadata meta = (IncrementalSnapshotMetadata)readSerialized(new File(out, rel));
                    m.put("request_id", meta.requestId().toString());
                    m.put("index", meta.incrementIndex());
                    m.put("finish_record", WalDump.ptr(meta.incrementalSnapshotPointer()));
                    m.put("snapshot_time", meta.snapshotTime());
                    if (!meta.requestId().toString().equals(inc.get("request_id"))) {
                        // The directory belongs to another attempt with the same index.
                        m = Json.obj("smf", null);
                    }
                }
                catch (Exception e) {
                    m.put("error", e.toString());
                }
                perNode.put(id, m);
            }
            inc.put("nodes", perNode);
        }
    }

    /** Restarts the servers from their live work directories and runs Ignite's restores. */
    private void restores() throws Exception {
        progress("restarting the servers (all in this JVM) for Ignite's restores");
        for (Ignite ig : cluster.startServers(sc.servers))
            nodes.put(ig.name(), ig);
        Cluster.activate(crd());
        Cluster.awaitOwning(servers(), cacheNames(), sc.servers, 120_000);

        if (sc.timings) {
            timedOperations();
            for (int i = sc.servers - 1; i >= 0; i--)
                stopNode(Scenario.serverId(i), false);
            return;
        }
        if (sc.extras) {
            for (Map<String, Object> snp : snapshots)
                snp.put("check", new SnapshotCheck(this::progress, crd(), cluster, sc, (String)snp.get("name")).run());
        }
        for (Map<String, Object> snp : snapshots)
            snp.put("restored", restore((String)snp.get("name"), 0));
        for (Map<String, Object> inc : increments) {
            if (inc.get("index") == null)
                continue;
            // A failed attempt whose increment every node kept all the same (its metadata there,
            // written by its request: the failure came after the nodes' part) is restored too, to
            // learn whether Ignite takes it.
            if (!Boolean.TRUE.equals(inc.get("ok")) && !keptOnEveryNode(inc))
                continue;
            inc.put("check", incrementCheck((String)inc.get("snapshot"), (Integer)inc.get("index")));
            inc.put("restored", restore((String)inc.get("snapshot"), (Integer)inc.get("index")));
        }
        for (int i = sc.servers - 1; i >= 0; i--)
            stopNode(Scenario.serverId(i), false);
    }

    /**
     * Ignite's own check of increment {@code idx} of full snapshot {@code name}, what {@code control.sh
     * --snapshot check NAME --increment idx} reports: the partitions whose copies' update counters or
     * hashes differ, the pairs of nodes whose transaction hashes differ, the transactions it calls
     * partially committed (by node: entries the node applied of a transaction whose PREPARED record
     * there does not name the node as a primary or backup), and the nodes whose check failed.
     */
    @SuppressWarnings("unchecked")
    private Map<String, Object> incrementCheck(String name, int idx) {
        Map<String, Object> m = new LinkedHashMap<>();
        try {
            IgniteSnapshotManager mgr = ((IgniteEx)crd()).context().cache().context().snapshotMgr();
            IdleVerifyResultV2 r = mgr.checkSnapshot(name, null, idx).get(600_000).idleVerifyResult();
            m.put("counter_conflicts", r.counterConflicts().size());
            m.put("hash_conflicts", r.hashConflicts().size());
            Object txHash = field(r, "txHashConflicts");
            m.put("tx_hash_conflicts", txHash == null ? 0 : ((List<?>)txHash).size());
            Map<String, Object> partial = new TreeMap<>();
            Object pc = field(r, "partiallyCommittedTxs");
            if (pc != null) {
                for (Map.Entry<ClusterNode, Collection<GridCacheVersion>> e :
                    ((Map<ClusterNode, Collection<GridCacheVersion>>)pc).entrySet()) {
                    List<String> xids = new ArrayList<>();
                    for (GridCacheVersion v : e.getValue())
                        xids.add(Workload.ver(v));
                    java.util.Collections.sort(xids);
                    partial.put(String.valueOf(e.getKey().consistentId()), xids);
                }
            }
            m.put("partially_committed", partial);
            Map<String, Object> errors = new TreeMap<>();
            if (r.exceptions() != null) {
                for (Map.Entry<ClusterNode, Exception> e : r.exceptions().entrySet())
                    errors.put(String.valueOf(e.getKey().consistentId()), String.valueOf(e.getValue()));
            }
            m.put("errors", errors);
            progress("Ignite's check of increment " + idx + ": " + m.get("counter_conflicts") + " counter, "
                + m.get("hash_conflicts") + " hash, " + m.get("tx_hash_conflicts") + " transaction hash conflicts, "
                + partial.size() + " node(s) with partially committed transactions, " + errors.size() + " error(s)");
        }
        catch (Exception e) {
            m.put("error", e.toString());
            progress("Ignite's check of increment " + idx + " failed: " + e);
        }
        return m;
    }

    /**
     * Ignite's own operations on the last increment, timed: the full snapshot's check
     * (checkSnapshot, what control.sh --snapshot check NAME runs), the increment's check
     * (--increment k) and its restore (restoreSnapshot(NAME, groups, k), the caches destroyed first and
     * not counted), each three times, the best kept.
     */
    private void timedOperations() throws Exception {
        IgniteSnapshotManager mgr = ((IgniteEx)crd()).context().cache().context().snapshotMgr();
        Map<String, Object> snp = snapshots.get(0);
        String name = (String)snp.get("name");
        Map<String, Object> last = null;
        for (Map<String, Object> inc : increments)
            if (Boolean.TRUE.equals(inc.get("ok")) && name.equals(inc.get("snapshot")))
                last = inc;
        long best = Long.MAX_VALUE;
        for (int r = 0; r < 3; r++) {
            long t = System.nanoTime();
            mgr.checkSnapshot(name, null).get(600_000);
            best = Math.min(best, System.nanoTime() - t);
        }
        snp.put("check_ms", best / 1e6);
        progress("Ignite's check of the full snapshot: " + best / 1_000_000 + " ms");
        if (last == null)
            return;
        int idx = (Integer)last.get("index");
        best = Long.MAX_VALUE;
        for (int r = 0; r < 3; r++) {
            long t = System.nanoTime();
            mgr.checkSnapshot(name, null, idx).get(600_000);
            best = Math.min(best, System.nanoTime() - t);
        }
        last.put("check_ms", best / 1e6);
        progress("Ignite's check of increment " + idx + ": " + best / 1_000_000 + " ms");
        best = Long.MAX_VALUE;
        for (int r = 0; r < 3; r++) {
            crd().destroyCaches(cacheNames());
            awaitCacheDirsGone(60_000);
            long t = System.nanoTime();
            crd().snapshot().restoreSnapshot(name, groupNames(), idx).get(10, TimeUnit.MINUTES);
            best = Math.min(best, System.nanoTime() - t);
        }
        last.put("restore_ms", best / 1e6);
        last.put("restored", wl.readAll(crd()));
        progress("Ignite's restore of increment " + idx + ": " + best / 1_000_000 + " ms");
    }

    /**
     * {@code control.sh --snapshot check NAME --increment K} as an operator runs it: control.sh's own
     * command handler (ignite-control-utility) started as a JVM of its own, with control.sh's heap and
     * this JVM's module openings and properties, over the thin client protocol to the coordinator. The
     * wall time of the whole process (its start, connection and the cluster's check), best of three, and
     * the check's verdict (its line "The check procedure has ..."); a run that does not exit 0 with a
     * verdict fails the timing.
     */
    private Map.Entry<Long, String> controlCheck(String name, int idx, File dir) throws Exception {
        int port = ((IgniteEx)crd()).context().clientListener().port();
        List<String> cmd = new ArrayList<>();
        cmd.add(ProcessHandle.current().info().command().orElse("java"));
        for (String a : ManagementFactory.getRuntimeMXBean().getInputArguments())
            if (a.startsWith("--add-opens") || a.startsWith("-D"))
                cmd.add(a);
        // Its Ignite home (where it makes a work directory) under `dir`, not the current directory.
        cmd.addAll(List.of("-Xms256m", "-Xmx1g", "-DIGNITE_HOME=" + new File(dir, "control-home"),
            "-cp", System.getProperty("java.class.path"),
            "org.apache.ignite.internal.commandline.CommandHandler", "--host", "127.0.0.1", "--port",
            String.valueOf(port), "--snapshot", "check", name, "--increment", String.valueOf(idx)));
        File log = new File(dir, "control.log");
        long best = Long.MAX_VALUE;
        String verdict = null;
        for (int r = 0; r < 3; r++) {
            long t = System.nanoTime();
            // No input: a question (a confirmation) is answered by end of file, not waited for.
            Process p = new ProcessBuilder(cmd).directory(dir).redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                .redirectErrorStream(true).redirectOutput(log).start();
            if (!p.waitFor(10, TimeUnit.MINUTES)) {
                p.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
                throw new IllegalStateException("control utility: no exit within 10 minutes");
            }
            long took = System.nanoTime() - t;
            String out = Files.readString(log.toPath());
            verdict = null;
            for (String line : out.split("\n"))
                if (line.startsWith("The check procedure has"))
                    verdict = line.length() > 300 ? line.substring(0, 300) : line;
            if (p.exitValue() != 0 || verdict == null)
                throw new IllegalStateException("control utility: exit " + p.exitValue() + ": " + out);
            best = Math.min(best, took);
        }
        progress("control.sh --snapshot check " + name + " --increment " + idx + ": " + best / 1_000_000 + " ms: "
            + verdict);
        return Map.entry(best, verdict);
    }

    /** A subcommand's failure: its stack trace in its log, one line on the console; returns 1. */
    private static int failed(String cmd, Throwable t, PrintStream logFile, PrintStream console, File keptLog) {
        t.printStackTrace(logFile);
        console.println("harness " + cmd + ": FAILED: " + t + " (log: " + keptLog + ")");
        return 1;
    }

    /**
     * The end of a subcommand run on nodes under {@code copy} (isolate): every node stopped, the log
     * kept as {@code keptLog} when it failed, and {@code copy} removed, whatever happened.
     */
    private static void endIsolatedRun(int rc, File copy, PrintStream logFile, PrintStream console, File keptLog)
        throws IOException {
        Ignition.stopAll(true);
        logFile.flush();
        if (rc != 0) {
            try {
                Files.copy(new File(copy, "harness.log").toPath(), keptLog.toPath(), StandardCopyOption.REPLACE_EXISTING);
            }
            catch (IOException e) {
                console.println("harness: the log could not be kept as " + keptLog + ": " + e);
            }
        }
        deleteTree(copy.toPath());
    }

    /**
     * {@code time-ops --scenario S --seed N --snapshot NAME --increment K RUN}: Ignite's own operations
     * on the last increment of a run made before (RUN/nodes/<id>/work), timed now as the scenario's
     * timings are (timedOperations), on a copy of the servers' work directories (under java.io.tmpdir)
     * started again in this JVM. The copy is removed after, whatever happened; on a failure its log is
     * kept as RUN/time-ops.log. Prints one JSON line: check_ms, increment_check_ms, restore_ms, and
     * control.sh's check of the increment as an operator runs it, timed, and its verdict (controlCheck; its
     * output kept as RUN/time-ops-control.log). A
     * benchmark compares walcut with these in the same run, on the same machine at the same time.
     */
    private static int timeOps(String[] args) throws Exception {
        String scenario = null, snapshot = null, run = null;
        long seed = 0;
        int idx = 0;
        boolean bad = false;
        for (int i = 0; i < args.length && !bad; i++) {
            boolean valued = args[i].startsWith("-");
            if (valued && i + 1 >= args.length) {
                bad = true;
                break;
            }
            try {
                switch (args[i]) {
                    case "--scenario": scenario = args[++i]; break;
                    case "--seed": seed = Long.parseLong(args[++i]); break;
                    case "--snapshot": snapshot = args[++i]; break;
                    case "--increment": idx = Integer.parseInt(args[++i]); break;
                    default:
                        bad = valued || run != null;  // an unknown option, or a second directory
                        run = args[i];
                }
            }
            catch (NumberFormatException e) {
                bad = true;
            }
        }
        if (bad || scenario == null || snapshot == null || idx <= 0 || run == null) {
            System.err.println("usage: harness time-ops --scenario S --seed N --snapshot NAME --increment K RUN_DIR");
            return 2;
        }
        Scenario sc = Scenario.byName(scenario);
        for (Map.Entry<String, String> e : sc.systemProperties.entrySet())
            System.setProperty(e.getKey(), e.getValue());
        File out = new File(run).getAbsoluteFile();
        File copy = Files.createTempDirectory("walcut-time-ops-").toFile();
        PrintStream console = System.err;
        PrintStream stdout = System.out;
        PrintStream logFile = isolate(new File(copy, "ignite-home"), new File(copy, "harness.log"));
        Harness h = new Harness(sc, seed, out, false, console, logFile);
        int rc = 0;
        try {
            File runDir = new File(copy, "run");
            for (int i = 0; i < sc.servers; i++) {
                String id = Scenario.serverId(i);
                copyTree(new File(out, "nodes/" + id + "/work").toPath(), new File(runDir, id).toPath());
            }
            h.cluster = new Cluster(sc, runDir);
            h.wl = new Workload(sc, seed, console);
            for (Ignite ig : h.cluster.startServers(sc.servers))
                h.nodes.put(ig.name(), ig);
            Cluster.activate(h.crd());
            Cluster.awaitOwning(h.servers(), h.cacheNames(), sc.servers, 120_000);
            Map<String, Object> snp = new LinkedHashMap<>();
            snp.put("name", snapshot);
            h.snapshots.add(snp);
            Map<String, Object> last = new LinkedHashMap<>();
            last.put("ok", true);
            last.put("snapshot", snapshot);
            last.put("index", idx);
            h.increments.add(last);
            Map.Entry<Long, String> control = h.controlCheck(snapshot, idx, copy);
            Files.copy(new File(copy, "control.log").toPath(), new File(out, "time-ops-control.log").toPath(),
                StandardCopyOption.REPLACE_EXISTING);
            h.timedOperations();
            Map<String, Object> times = new LinkedHashMap<>();
            times.put("check_ms", snp.get("check_ms"));
            times.put("increment_check_ms", last.get("check_ms"));
            times.put("restore_ms", last.get("restore_ms"));
            times.put("control_increment_check_ms", control.getKey() / 1e6);
            times.put("control_increment_check_verdict", control.getValue());
            stdout.println(Json.write(times));
        }
        catch (Throwable t) {
            rc = failed("time-ops", t, logFile, console, new File(out, "time-ops.log"));
        }
        finally {
            endIsolatedRun(rc, copy, logFile, console, new File(out, "time-ops.log"));
        }
        return rc;
    }

    /**
     * {@code check-increments --scenario S RUN NAME/K...}: Ignite's own check of increment K of full
     * snapshot NAME of a run made before, for each NAME/K given (incrementCheck, what control.sh
     * --snapshot check NAME --increment K reports), on a cluster of the run's servers started afresh
     * (under java.io.tmpdir, with the same consistent ids, so the same compact ids in the baseline)
     * with each server's snapshots/ copied from RUN/nodes/<id>/work: all the check reads. For a
     * fixture, whose live work directories keep only the WAL (tests/ignite/add_increment_checks.py).
     * Prints one JSON line: {"NAME/K": check, ...}.
     */
    private static int checkIncrements(String[] args) throws Exception {
        if (args.length < 4 || !args[0].equals("--scenario")) {
            System.err.println("usage: harness check-increments --scenario S RUN_DIR NAME/K...");
            return 2;
        }
        Scenario sc = Scenario.byName(args[1]);
        File out = new File(args[2]).getAbsoluteFile();
        for (Map.Entry<String, String> e : sc.systemProperties.entrySet())
            System.setProperty(e.getKey(), e.getValue());
        File copy = Files.createTempDirectory("walcut-check-increments-").toFile();
        PrintStream console = System.err;
        PrintStream stdout = System.out;
        PrintStream logFile = isolate(new File(copy, "ignite-home"), new File(copy, "harness.log"));
        Harness h = new Harness(sc, 0, out, false, console, logFile);
        int rc = 0;
        try {
            File runDir = new File(copy, "run");
            for (int i = 0; i < sc.servers; i++) {
                String id = Scenario.serverId(i);
                copyTree(new File(out, "nodes/" + id + "/work/snapshots").toPath(),
                    new File(runDir, id + "/snapshots").toPath());
            }
            h.cluster = new Cluster(sc, runDir);
            for (Ignite ig : h.cluster.startServers(sc.servers))
                h.nodes.put(ig.name(), ig);
            Cluster.activate(h.crd());
            Map<String, Object> checks = new LinkedHashMap<>();
            for (int i = 3; i < args.length; i++) {
                int slash = args[i].lastIndexOf('/');
                checks.put(args[i], h.incrementCheck(args[i].substring(0, slash),
                    Integer.parseInt(args[i].substring(slash + 1))));
            }
            stdout.println(Json.write(checks));
        }
        catch (Throwable t) {
            rc = failed("check-increments", t, logFile, console, new File(out, "check-increments.log"));
        }
        finally {
            endIsolatedRun(rc, copy, logFile, console, new File(out, "check-increments.log"));
        }
        return rc;
    }

    /** Whether every server holds the attempt's increment metadata, made by its request. */
    @SuppressWarnings("unchecked")
    private boolean keptOnEveryNode(Map<String, Object> inc) {
        Object nodesObj = inc.get("nodes");
        if (!(nodesObj instanceof Map))
            return false;
        Map<String, Object> perNode = (Map<String, Object>)nodesObj;
        for (int i = 0; i < sc.servers; i++) {
            Object m = perNode.get(Scenario.serverId(i));
            if (!(m instanceof Map) || !String.valueOf(inc.get("request_id")).equals(((Map<String, Object>)m).get("request_id")))
                return false;
        }
        return true;
    }

    private Map<String, Object> restore(String name, int idx) {
        long t = System.currentTimeMillis();
        Ignite ig = crd();
        String what = (idx == 0 ? "the full snapshot" : "increment " + idx) + " of " + name;
        try {
            ig.destroyCaches(cacheNames());
            awaitCacheDirsGone(30_000);
            if (idx == 0)
                ig.snapshot().restoreSnapshot(name, groupNames()).get(5, TimeUnit.MINUTES);
            else
                ig.snapshot().restoreSnapshot(name, groupNames(), idx).get(5, TimeUnit.MINUTES);
            long restoredMs = System.currentTimeMillis() - t;
            Map<String, Object> res = wl.readAll(ig);
            res.put("ms", restoredMs);
            if (sc.extras) {
                res.put("content", wl.readContent(ig));
                res.put("copies", wl.readCopies(servers()));
            }
            progress("restore of " + what + ": total " + res.get("total"));
            return res;
        }
        catch (Exception e) {
            progress("restore of " + what + " FAILED: " + message(e));
            return Json.obj("error", message(e), "ms", System.currentTimeMillis() - t);
        }
    }

    /**
     * A destroyed cache's files go away asynchronously; a restore refuses to start while its directory
     * still holds files.
     */
    private void awaitCacheDirsGone(long timeoutMs) throws InterruptedException {
        long deadline = System.currentTimeMillis() + timeoutMs;
        while (System.currentTimeMillis() < deadline) {
            boolean gone = true;
            for (int i = 0; i < sc.servers; i++) {
                String id = Scenario.serverId(i);
                for (String g : groupNames()) {
                    String dir = g.equals(sc.shelfGroup) ? "/cacheGroup-" : "/cache-";
                    String[] left = new File(cluster.workDir(id), "db/" + folderOf(id) + dir + g).list();
                    gone &= left == null || left.length == 0;
                }
            }
            if (gone)
                return;
            Thread.sleep(50);
        }
    }

    static void copyTree(Path src, Path dst) throws IOException {
        Files.walkFileTree(src, new SimpleFileVisitor<>() {
            @Override public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) throws IOException {
                Files.createDirectories(dst.resolve(src.relativize(dir).toString()));
                return FileVisitResult.CONTINUE;
            }

            @Override public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                if (file.getFileName().toString().equals("lock"))
                    return FileVisitResult.CONTINUE;
                Files.copy(file, dst.resolve(src.relativize(file).toString()), StandardCopyOption.COPY_ATTRIBUTES);
                return FileVisitResult.CONTINUE;
            }
        });
    }

    static void deleteTree(Path p) throws IOException {
        if (!Files.exists(p))
            return;
        try (var s = Files.walk(p)) {
            for (Path q : (Iterable<Path>)s.sorted(Comparator.reverseOrder())::iterator)
                Files.delete(q);
        }
    }
}
