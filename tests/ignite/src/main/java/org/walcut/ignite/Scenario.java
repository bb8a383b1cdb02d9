package org.walcut.ignite;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** The fixed shapes of a run; the seed drives everything inside them. */
final class Scenario {
    String name;

    int servers = 3;

    int clients = 1;

    /** Bank cache: keys of three types (int, long, String), values Long. */
    String bankCache = "bank";
    int bankPartitions = 32;
    int bankBackups = 1;
    int bankAccounts = 24;

    /** Accounts below this index are shared by every worker and never deleted. */
    int bankShared = 12;

    /** Vault cache: int keys, Account (binary object) values. */
    String vaultCache = "vault";
    int vaultPartitions = 16;
    int vaultBackups = 2;
    int vaultAccounts = 8;

    /** Each account starts with 1000 + a seeded amount below this. */
    int initialSpread = 1000;

    /** Increments requested after the full snapshot, one per phase (attempts 1..increments). */
    int increments = 3;

    /** Transactions per worker per phase; the increment of a phase is requested halfway. */
    int txPerPhase = 12;

    /** Pause between a worker's transactions, and inside each one between its reads and its writes. */
    int thinkMs = 10;
    int inTxPauseMs = 5;

    /** Per cent of transactions that end in an explicit rollback. */
    int rollbackPct = 6;

    /** Per cent of steps that try a delete (then a re-create) of a worker's own account. */
    int deletePct = 6;
    int recreatePct = 6;

    /** Worker origins: "client-0" or a server consistent id. */
    List<String> workers = new ArrayList<>();

    /**
     * How the last server is taken down during a faulted attempt: "stop" = Ignition.stop(name, true)
     * in the harness JVM; "kill" = the node runs in a JVM of its own, killed with SIGKILL.
     */
    String faultKind = "stop";

    /**
     * Faulted attempts (1-based): during each, the last server is taken down and, once Ignite has
     * decided the attempt, started again. The value says whether the workers pause from the middle of
     * that phase (before the increment is requested) until the node is back, so that the node misses
     * no update and needs no rebalance.
     */
    Map<Integer, Boolean> faults = new TreeMap<>();

    long checkpointFrequencyMs = 15_000;

    int walSegmentSize = 512 * 1024;

    int walSegments = 2;

    long regionMaxBytes = 64L << 20;

    /** Whether Ignite compacts archived segments into .wal.zip files (incremental snapshots need it). */
    boolean walCompaction = true;

    /**
     * The workload and its WAL only: Ignite's reading of the WAL and its restores are skipped (a
     * benchmark input, too large for them to be quick; truth.json then has no restored balances).
     */
    boolean walOnly = false;

    /**
     * A benchmark of Ignite's own tools beside walcut's: Ignite's WAL reading is skipped, and only the
     * last increment is restored (and the full snapshot), each of Ignite's operations timed
     * (snapshot.check_ms, the last increment's check_ms and restore_ms).
     */
    boolean timings = false;

    /** Transfers from the client, one at a time, before the full snapshot: WAL history. */
    int warmupTx = 0;

    String snapshotName = "snap";

    /**
     * Caches beyond the bank's money (they carry no money): a cache group "shelf" of two caches
     * ("blobs": BlobKey objects to byte[] values of up to 14 KiB, so rows fragmented over pages;
     * "notes": String to String), an ATOMIC cache "events" (Long to String, written outside
     * transactions) and, in a run without faults, "solo" (int to Long) with no backups.
     */
    boolean extras = false;
    String shelfGroup = "shelf";
    String blobsCache = "blobs";
    String notesCache = "notes";
    int shelfPartitions = 16;
    int shelfBackups = 1;
    int shelfKeys = 12;
    int maxBlobBytes = 14 * 1024;
    String eventsCache = "events";
    int eventsPartitions = 8;
    int eventsBackups = 1;
    int eventKeys = 16;
    String soloCache = "solo";
    int soloPartitions = 8;
    int soloKeys = 8;

    /** Per cent of steps followed by a shelf transaction, and by an atomic write of events. */
    int shelfPct = 30;
    int eventPct = 30;

    /** DataStorageConfiguration.maxWalArchiveSize in bytes; 0 keeps Ignite's default. */
    long maxWalArchiveSize = 0;

    /**
     * The attempt (1-based) before which the last server's JVM is killed (SIGKILL) under load, so
     * that the attempt runs while it is down; it is then started again, rebalanced, and a new full
     * snapshot {@link #snapshotName2} is taken: later attempts are increments of that one. 0: none.
     */
    int downAttempt = 0;
    String snapshotName2 = "snap2";

    boolean hasSolo() {
        return extras && faults.isEmpty() && downAttempt == 0;
    }

    /** JVM-wide Ignite system properties the scenario sets before any node starts. */
    Map<String, String> systemProperties = new TreeMap<>();

    static String serverId(int i) {
        return "server-" + i;
    }

    static String clientId(int i) {
        return "client-" + i;
    }

    String victim() {
        return serverId(servers - 1);
    }

    boolean paused(int attempt) {
        return faults.getOrDefault(attempt, false);
    }

    static Scenario byName(String name) {
        Scenario s = new Scenario();
        s.name = name;
        switch (name) {
            case "clean":
                s.workers.add(clientId(0));
                s.workers.add(serverId(0));
                s.workers.add(serverId(1));
                s.workers.add(serverId(2));
                break;

            case "failed-increment":
                // Four servers; server-3 runs in a JVM of its own and is killed twice:
                //  - during attempt 2 with the workers paused, so that it misses no update and is back
                //    without a rebalance; Ignite accepts the increments requested afterwards;
                //  - during attempt 4 under load: it is rebalanced when it is back, and Ignite 2.17
                //    then refuses every later increment of the snapshot ("WAL was disabled since
                //    previous snapshot"), which attempt 5 records.
                s.servers = 4;
                s.bankAccounts = 32;
                s.bankShared = 16;
                s.increments = 5;
                s.txPerPhase = 10;
                s.faultKind = "kill";
                s.faults.put(2, true);
                s.faults.put(4, false);
                s.workers.add(clientId(0));
                s.workers.add(serverId(0));
                s.workers.add(serverId(1));
                break;

            case "node-stop":
                // Three servers; server-2 is stopped in the harness JVM (Ignition.stop with cancel)
                // during attempt 2 under load; attempt 3 follows its return.
                s.increments = 3;
                s.txPerPhase = 10;
                s.faults.put(2, false);
                s.workers.add(clientId(0));
                s.workers.add(serverId(0));
                s.workers.add(serverId(1));
                break;

            case "compacted":
                // Checkpoints every second: Ignite deletes each raw archive segment once it is
                // compacted and older than the last checkpoint, so most of the archive is .wal.zip only.
                s.checkpointFrequencyMs = 1_000;
                s.txPerPhase = 16;
                s.workers.add(clientId(0));
                s.workers.add(serverId(0));
                s.workers.add(serverId(1));
                break;

            case "full":
                // The clean scenario with every extra cache: a cache group of two caches, an ATOMIC
                // cache, a cache with no backups, binary keys, deletes and values larger than a page.
                s.extras = true;
                s.workers.add(clientId(0));
                s.workers.add(serverId(0));
                s.workers.add(serverId(1));
                s.workers.add(serverId(2));
                break;

            case "truncated":
                // A small WAL archive: Ignite deletes the oldest archived segments (checkpoints every
                // second let it) long before the last increment, so no node's WAL reaches back to
                // segment 0 or to the full snapshot. Increments come often enough that each takes
                // its segments before they go (an increment whose first segment is gone fails:
                // "WAL segment not found in archive").
                s.extras = true;
                s.checkpointFrequencyMs = 1_000;
                s.maxWalArchiveSize = 4L << 20;
                s.txPerPhase = 60;
                s.increments = 4;
                s.shelfPct = 60;
                s.workers.add(clientId(0));
                s.workers.add(serverId(0));
                s.workers.add(serverId(1));
                break;

            case "rebalance":
                // server-2 in a JVM of its own, killed (SIGKILL) under load after increment 2;
                // attempt 3 runs while it is down (Ignite fails it); it is started again and
                // rebalanced, after which Ignite refuses increments of "snap"; a new full snapshot
                // "snap2" is taken and attempts 4 and 5 are its increments 1 and 2.
                s.extras = true;
                s.increments = 5;
                s.txPerPhase = 14;
                s.faultKind = "kill";
                s.downAttempt = 3;
                s.workers.add(clientId(0));
                s.workers.add(serverId(0));
                s.workers.add(serverId(1));
                break;

            case "bench-snapshot":
            case "bench-snapshot-long":
                // Ignite's snapshot check, increment check and restore timed beside walcut's, on
                // the full scenario's caches (page files) at full speed: about 12 000 transactions
                // in three increments; "-long" adds 40 000 transfers before the full snapshot, a
                // longer history behind the same increments.
                s.extras = true;
                s.timings = true;
                s.bankAccounts = 2000;
                s.bankShared = 1000;
                s.vaultAccounts = 200;
                s.shelfKeys = 200;
                s.eventKeys = 500;
                s.txPerPhase = 750;
                s.thinkMs = 0;
                s.inTxPauseMs = 0;
                s.walSegmentSize = 16 << 20;
                s.walSegments = 4;
                s.regionMaxBytes = 256L << 20;
                s.warmupTx = name.endsWith("-long") ? 40_000 : 0;
                s.workers.add(clientId(0));
                s.workers.add(serverId(0));
                s.workers.add(serverId(1));
                s.workers.add(serverId(2));
                break;

            case "bench":
                // A benchmark input, not a fixture: the clean scenario's shape at full speed (no
                // pauses), about 100 000 transactions over more accounts, in 64 MiB segments
                // (Ignite's default).
                s.bankAccounts = 600;
                s.bankShared = 300;
                s.vaultAccounts = 60;
                s.txPerPhase = 6000;
                s.thinkMs = 0;
                s.inTxPauseMs = 0;
                s.walSegmentSize = 64 << 20;
                s.walSegments = 4;
                s.regionMaxBytes = 256L << 20;
                s.walOnly = true;
                s.workers.add(clientId(0));
                s.workers.add(serverId(0));
                s.workers.add(serverId(1));
                s.workers.add(serverId(2));
                break;

            default:
                throw new IllegalArgumentException("unknown scenario: " + name
                    + " (known: clean, failed-increment, node-stop, compacted, full, truncated, rebalance, bench, bench-snapshot, bench-snapshot-long)");
        }
        return s;
    }
}
