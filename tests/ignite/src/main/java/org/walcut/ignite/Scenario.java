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

    /** Increments requested after the full snapshot, one per phase. */
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
     * How the last server is taken down during the faulted attempt: "stop" = Ignition.stop(name, true)
     * in the harness JVM; "kill" = the node runs in a JVM of its own, killed with SIGKILL.
     */
    String faultKind = "stop";

    /** Attempt (1-based) during which a server is stopped; 0 = no fault. */
    int faultAttempt = 0;

    /**
     * Whether the workers stop in the middle of the faulted phase (before the increment is requested)
     * and go on only after the stopped node is back.
     */
    boolean pauseDuringFault = false;

    /** Extra increments requested after the faulted one (the node restarted by then). */
    int incrementsAfterFault = 0;

    long checkpointFrequencyMs = 15_000;

    int walSegmentSize = 512 * 1024;

    int walSegments = 2;

    long regionMaxBytes = 64L << 20;

    String snapshotName = "snap";

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

    int attempts() {
        return increments + incrementsAfterFault;
    }

    /** Four servers, the last one stopped while increment attempt 2 runs, two attempts after it. */
    private static void faulted(Scenario s) {
        s.servers = 4;
        s.bankAccounts = 32;
        s.bankShared = 16;
        s.increments = 2;
        s.faultAttempt = 2;
        s.incrementsAfterFault = 2;
        s.txPerPhase = 10;
        s.workers.add(clientId(0));
        s.workers.add(serverId(0));
        s.workers.add(serverId(1));
    }

    static Scenario byName(String name) {
        Scenario s = new Scenario();
        s.name = name;
        switch (name) {
            case "clean":
                s.servers = 3;
                s.workers.add(clientId(0));
                s.workers.add(serverId(0));
                s.workers.add(serverId(1));
                s.workers.add(serverId(2));
                break;

            case "failed-increment":
                faulted(s);
                s.faultKind = "kill";
                // Any rebalance towards the restarted node (full or historical) makes Ignite 2.17 refuse
                // every later increment of the snapshot ("WAL was disabled since previous snapshot"). The
                // workers therefore pause from the middle of the faulted phase until the node is back.
                s.pauseDuringFault = true;
                break;

            case "failed-increment-rebalance":
                // The same fault under load: the restarted node is rebalanced and Ignite refuses the
                // increments requested afterwards.
                faulted(s);
                break;

            case "compacted":
                s.servers = 3;
                s.checkpointFrequencyMs = 1_000;
                s.txPerPhase = 16;
                s.workers.add(clientId(0));
                s.workers.add(serverId(0));
                s.workers.add(serverId(1));
                break;

            default:
                throw new IllegalArgumentException("unknown scenario: " + name
                    + " (known: clean, failed-increment, failed-increment-rebalance, compacted)");
        }
        return s;
    }
}
