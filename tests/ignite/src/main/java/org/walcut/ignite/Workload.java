package org.walcut.ignite;

import java.io.PrintStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.ignite.Ignite;
import org.apache.ignite.IgniteCache;
import javax.cache.Cache;
import org.apache.ignite.binary.BinaryObject;
import org.apache.ignite.binary.BinaryType;
import org.apache.ignite.cache.CachePeekMode;
import org.apache.ignite.cache.query.ScanQuery;
import org.apache.ignite.internal.processors.cache.transactions.TransactionProxyImpl;
import org.apache.ignite.internal.processors.cache.version.GridCacheVersion;
import org.apache.ignite.transactions.Transaction;
import org.apache.ignite.transactions.TransactionRollbackException;

import static org.apache.ignite.transactions.TransactionConcurrency.PESSIMISTIC;
import static org.apache.ignite.transactions.TransactionIsolation.SERIALIZABLE;

/**
 * The bank workload: PESSIMISTIC/SERIALIZABLE transfers between accounts of two caches, with explicit
 * rollbacks, deletes (money moved out first) and re-creates (money moved back in). Money is never
 * created or lost. Every choice comes from a per-worker Random seeded from the run's seed.
 */
final class Workload {
    /** One account: a cache and a key. */
    static final class Acct {
        final int cache; // 0 = bank, 1 = vault
        final Object key;
        final String sortKey;

        Acct(int cache, Object key) {
            this.cache = cache;
            this.key = key;
            String t = key instanceof Integer ? "i" : key instanceof Long ? "l" : "s";
            this.sortKey = cache + ":" + t + ":" + key;
        }

        @Override public String toString() {
            return sortKey;
        }
    }

    final Scenario sc;
    final long seed;
    final PrintStream console;

    final List<Acct> bank = new ArrayList<>();
    final List<Acct> vault = new ArrayList<>();
    final List<Acct> shared = new ArrayList<>();

    /** Every transaction the workload started, in the order they ended. */
    final List<Map<String, Object>> txLog = Collections.synchronizedList(new ArrayList<>());

    final AtomicInteger txCount = new AtomicInteger();

    long initialTotal;

    Map<String, Long> initial = new HashMap<>();

    CountDownLatch[] half;
    CountDownLatch[] resume;
    CountDownLatch[] gate;

    Workload(Scenario sc, long seed, PrintStream console) {
        this.sc = sc;
        this.seed = seed;
        this.console = console;
        for (int i = 0; i < sc.bankAccounts; i++) {
            Object key;
            switch (i % 3) {
                case 0: key = i; break;
                case 1: key = 10_000_000_000L + i; break;
                default: key = "acct-" + i;
            }
            Acct a = new Acct(0, key);
            bank.add(a);
            if (i < sc.bankShared)
                shared.add(a);
        }
        for (int i = 0; i < sc.vaultAccounts; i++) {
            Acct a = new Acct(1, 100 + i);
            vault.add(a);
            shared.add(a);
        }
    }

    String cacheName(Acct a) {
        return a.cache == 0 ? sc.bankCache : sc.vaultCache;
    }

    static Map<String, Object> keyObj(Object key) {
        String t = key instanceof Integer ? "int" : key instanceof Long ? "long" : "string";
        return Json.obj("type", t, "value", key);
    }

    Map<String, Object> acctObj(Acct a) {
        Map<String, Object> m = Json.obj("cache", cacheName(a));
        m.putAll(keyObj(a.key));
        return m;
    }

    static String ver(GridCacheVersion v) {
        if (v == null)
            return null;
        return v.topologyVersion() + "." + v.nodeOrder() + "." + v.order();
    }

    /** Whether Ignite committed the transaction in one phase (known after commit). */
    static Boolean onePhase(Transaction tx) {
        try {
            if (tx instanceof TransactionProxyImpl)
                return ((TransactionProxyImpl<?, ?>)tx).tx().onePhaseCommit();
        }
        catch (RuntimeException ignored) {
            // Not reachable on this transaction.
        }
        return null;
    }

    static String nearOf(Transaction tx) {
        try {
            if (tx instanceof TransactionProxyImpl)
                return ver(((TransactionProxyImpl<?, ?>)tx).tx().nearXidVersion());
        }
        catch (RuntimeException ignored) {
            // Not reachable on this transaction.
        }
        return null;
    }

    @SuppressWarnings("unchecked")
    static IgniteCache<Object, Object> cache(Ignite ig, String name) {
        return (IgniteCache<Object, Object>)(IgniteCache<?, ?>)ig.cache(name);
    }

    /** Balance of a value read from a cache (Long in bank, Account or its binary form in vault). */
    static Long balanceOf(Object v) {
        if (v == null)
            return null;
        if (v instanceof Long)
            return (Long)v;
        if (v instanceof Account)
            return ((Account)v).balance;
        if (v instanceof BinaryObject)
            return ((BinaryObject)v).field("balance");
        throw new IllegalStateException("unexpected value " + v.getClass());
    }

    Object valueFor(Acct a, long bal) {
        return a.cache == 0 ? (Object)bal : new Account(bal, "owner-" + a.key);
    }

    /** Every cache of the run, money first. */
    List<String> caches() {
        List<String> res = new ArrayList<>(List.of(sc.bankCache, sc.vaultCache));
        if (sc.extras) {
            res.addAll(List.of(sc.blobsCache, sc.notesCache, sc.eventsCache));
            if (sc.hasSolo())
                res.add(sc.soloCache);
        }
        return res;
    }

    /**
     * A blob's bytes: {@code len} bytes, a block of 32 drawn from a generator seeded by the blob and its
     * version, repeated (so that the fixtures compress; every version's bytes differ all the same).
     */
    static byte[] blobBytes(int len, long seed) {
        byte[] block = new byte[32];
        new Random(seed).nextBytes(block);
        byte[] b = new byte[len];
        for (int i = 0; i < len; i++)
            b[i] = block[i % block.length];
        return b;
    }

    /** The caches beyond the money: the shelf's blobs and notes, the atomic events, solo. */
    void loadExtras(Ignite ig, String origin) {
        if (!sc.extras)
            return;
        Random rnd = new Random(seed * 37 + 11);
        List<Object> keys = new ArrayList<>();
        Map<String, Object> rec = Json.obj("near", null, "outcome", null, "origin", origin, "kind", "load",
            "phase", 0, "keys", keys);
        try (Transaction tx = ig.transactions().txStart(PESSIMISTIC, SERIALIZABLE, 30_000, 0)) {
            rec.put("near", nearOf(tx));
            for (int i = 0; i < sc.shelfKeys; i++) {
                // Every third blob is larger than a page, the rest smaller.
                int len = i % 3 == 0 ? 4200 + rnd.nextInt(sc.maxBlobBytes - 4200) : 50 + rnd.nextInt(2000);
                cache(ig, sc.blobsCache).put(new BlobKey(i), blobBytes(len, seed * 7919 + i));
                cache(ig, sc.notesCache).put("note-" + i, "note " + i + " v0");
                keys.add(Json.obj("cache", sc.blobsCache, "type", "blob", "value", i));
            }
            if (sc.hasSolo()) {
                for (int i = 0; i < sc.soloKeys; i++)
                    cache(ig, sc.soloCache).put(i, 0L);
            }
            tx.commit();
            rec.put("outcome", "committed");
        }
        txLog.add(rec);
        for (int i = 0; i < sc.eventKeys; i++)
            cache(ig, sc.eventsCache).put(1_000_000L + i, "event " + i + " loaded");
    }

    /** Initial balances, written from the given node in a few transactions. */
    void load(Ignite ig, String origin) {
        Random rnd = new Random(seed * 31 + 7);
        List<Acct> all = new ArrayList<>(bank);
        all.addAll(vault);
        int batch = 8;
        for (int from = 0; from < all.size(); from += batch) {
            List<Acct> part = all.subList(from, Math.min(all.size(), from + batch));
            List<Object> keys = new ArrayList<>();
            Map<String, Object> rec = Json.obj("near", null, "outcome", null, "origin", origin, "kind", "load",
                "phase", 0, "keys", keys);
            try (Transaction tx = ig.transactions().txStart(PESSIMISTIC, SERIALIZABLE, 30_000, part.size())) {
                rec.put("near", nearOf(tx));
                for (Acct a : part) {
                    long bal = 1000 + rnd.nextInt(sc.initialSpread);
                    cache(ig, cacheName(a)).put(a.key, valueFor(a, bal));
                    initial.put(a.sortKey, bal);
                    initialTotal += bal;
                    keys.add(acctObj(a));
                }
                tx.commit();
                rec.put("outcome", "committed");
            }
            txLog.add(rec);
        }
    }

    /**
     * History before the full snapshot: {@code n} transfers from the given node, one at a time, between
     * the shared accounts (kind "warmup"; never rolled back).
     */
    void warmUp(Ignite ig, String origin, int n) {
        Random rnd = new Random(seed * 53 + 3);
        for (int i = 0; i < n; i++) {
            Acct a = shared.get(rnd.nextInt(shared.size()));
            Acct b;
            do {
                b = shared.get(rnd.nextInt(shared.size()));
            }
            while (b == a);
            List<Acct> order = new ArrayList<>(List.of(a, b));
            order.sort(Comparator.comparing(x -> x.sortKey));
            try (Transaction tx = ig.transactions().txStart(PESSIMISTIC, SERIALIZABLE, 15_000, 2)) {
                Map<String, Long> bal = new HashMap<>();
                for (Acct x : order)
                    bal.put(x.sortKey, balanceOf(cache(ig, cacheName(x)).get(x.key)));
                long amount = Math.min(1 + rnd.nextInt(100), bal.get(a.sortKey));
                cache(ig, cacheName(a)).put(a.key, valueFor(a, bal.get(a.sortKey) - amount));
                cache(ig, cacheName(b)).put(b.key, valueFor(b, bal.get(b.sortKey) + amount));
                tx.commit();
            }
        }
        txLog.add(Json.obj("near", null, "outcome", "committed", "origin", origin, "kind", "warmup", "phase", 0,
            "count", n));
    }

    /** Reads every account from the given node: {"balances": [...], "total": n}. */
    Map<String, Object> readAll(Ignite ig) {
        List<Object> bal = new ArrayList<>();
        long total = 0;
        List<Acct> all = new ArrayList<>(bank);
        all.addAll(vault);
        for (Acct a : all) {
            Object v = cache(ig, cacheName(a)).withKeepBinary().get(a.key);
            Long b = balanceOf(v);
            if (b == null)
                continue;
            Map<String, Object> m = Json.obj("cache", cacheName(a), "key", keyObj(a.key), "balance", b);
            bal.add(m);
            total += b;
        }
        return Json.obj("balances", bal, "total", total);
    }

    /**
     * A value as the truth records it, to compare with walcut's text of it: int:N, long:N, string:S,
     * bytes:LEN:SHA-256, binary:TYPE{field=V,...} (fields sorted by name; a field's number as num:N).
     */
    static String canon(Object o) {
        if (o == null)
            return null;
        if (o instanceof Integer)
            return "int:" + o;
        if (o instanceof Long)
            return "long:" + o;
        if (o instanceof String)
            return "string:" + o;
        if (o instanceof byte[])
            return "bytes:" + ((byte[])o).length + ":" + sha256((byte[])o);
        if (o instanceof BinaryObject) {
            BinaryObject b = (BinaryObject)o;
            BinaryType t = b.type();
            List<String> names = new ArrayList<>(t.fieldNames());
            Collections.sort(names);
            StringBuilder sb = new StringBuilder("binary:").append(t.typeName()).append('{');
            for (int i = 0; i < names.size(); i++) {
                Object f = b.field(names.get(i));
                sb.append(i == 0 ? "" : ",").append(names.get(i)).append('=');
                sb.append(f instanceof Number ? "num:" + f : canon(f));
            }
            return sb.append('}').toString();
        }
        return "other:" + o.getClass().getName() + ":" + o;
    }

    static String sha256(byte[] b) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(b));
        }
        catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Every entry of every cache, read from the given node: {cache: [[key, value], ...]} (canon, sorted). */
    Map<String, Object> readContent(Ignite ig) {
        Map<String, Object> res = new java.util.TreeMap<>();
        for (String name : caches()) {
            List<List<String>> rows = new ArrayList<>();
            IgniteCache<Object, Object> c = cache(ig, name).withKeepBinary();
            try (var cur = c.query(new ScanQuery<Object, Object>())) {
                for (Cache.Entry<Object, Object> e : cur)
                    rows.add(List.of(canon(e.getKey()), canon(e.getValue())));
            }
            rows.sort(Comparator.comparing((List<String> r) -> r.get(0)));
            res.put(name, rows);
        }
        return res;
    }

    /**
     * Each server's own copies, read locally (primary and backup): {node: {cache: [[partition, key,
     * value], ...]}} (canon, sorted).
     */
    Map<String, Object> readCopies(List<Ignite> servers) {
        Map<String, Object> res = new java.util.TreeMap<>();
        for (Ignite ig : servers) {
            Map<String, Object> perCache = new java.util.TreeMap<>();
            for (String name : caches()) {
                List<List<Object>> rows = new ArrayList<>();
                IgniteCache<Object, Object> c = cache(ig, name).withKeepBinary();
                for (Cache.Entry<Object, Object> e : c.localEntries(CachePeekMode.PRIMARY, CachePeekMode.BACKUP))
                    rows.add(List.of(ig.affinity(name).partition(e.getKey()), canon(e.getKey()), canon(e.getValue())));
                rows.sort(Comparator.comparing((List<Object> r) -> (Integer)r.get(0))
                    .thenComparing(r -> (String)r.get(1)));
                perCache.put(name, rows);
            }
            res.put(ig.name(), perCache);
        }
        return res;
    }

    /** Starts the workers; phases 1..attempts+1, each with txPerPhase transactions per worker. */
    List<Thread> start(Map<String, Ignite> nodes) {
        int phases = sc.increments + 1;
        half = new CountDownLatch[phases + 1];
        resume = new CountDownLatch[phases + 1];
        gate = new CountDownLatch[phases + 1];
        for (int p = 0; p <= phases; p++) {
            half[p] = new CountDownLatch(sc.workers.size());
            resume[p] = new CountDownLatch(sc.paused(p) ? 1 : 0);
            gate[p] = new CountDownLatch(1);
        }
        gate[phases].countDown();

        List<Thread> threads = new ArrayList<>();
        for (int w = 0; w < sc.workers.size(); w++) {
            String origin = sc.workers.get(w);
            Worker wk = new Worker(w, origin, nodes.get(origin), phases);
            Thread t = new Thread(wk, "worker-" + origin);
            t.start();
            threads.add(t);
        }
        return threads;
    }

    final class Worker implements Runnable {
        final int w;
        final String origin;
        final Ignite ig;
        final int phases;
        final Random rnd;
        final List<Acct> own = new ArrayList<>();
        final Map<String, Boolean> exists = new HashMap<>();
        int seq;

        Worker(int w, String origin, Ignite ig, int phases) {
            this.w = w;
            this.origin = origin;
            this.ig = ig;
            this.phases = phases;
            this.rnd = new Random(seed * 1_000_003L + 17 * (w + 1));
            int nw = sc.workers.size();
            for (int i = sc.bankShared; i < sc.bankAccounts; i++) {
                if ((i - sc.bankShared) % nw == w) {
                    own.add(bank.get(i));
                    exists.put(bank.get(i).sortKey, true);
                }
            }
        }

        @Override public void run() {
            int p = 1;
            try {
                for (; p <= phases; p++) {
                    for (int i = 0; i < sc.txPerPhase; i++) {
                        if (i == sc.txPerPhase / 2) {
                            half[p].countDown();
                            if (!resume[p].await(10, TimeUnit.MINUTES))
                                throw new IllegalStateException("phase " + p + " never resumed");
                        }
                        step(p);
                        if (sc.thinkMs > 0)
                            Thread.sleep(sc.thinkMs);
                    }
                    if (!gate[p].await(10, TimeUnit.MINUTES))
                        throw new IllegalStateException("gate " + p + " never opened");
                }
            }
            catch (Throwable t) {
                console.println("worker " + origin + " stopped: " + t);
                t.printStackTrace();
            }
            finally {
                for (int q = p; q <= phases; q++)
                    half[q].countDown();
            }
        }

        private Acct pick(List<Acct> from) {
            return from.get(rnd.nextInt(from.size()));
        }

        private void step(int phase) {
            List<Acct> ownExisting = new ArrayList<>();
            List<Acct> ownDeleted = new ArrayList<>();
            for (Acct a : own)
                (exists.get(a.sortKey) ? ownExisting : ownDeleted).add(a);

            int r = rnd.nextInt(100);
            long drawn = 1 + rnd.nextInt(100);
            boolean rollback = rnd.nextInt(100) < sc.rollbackPct;

            String kind;
            Acct a;
            Acct b;
            if (r < sc.deletePct && !ownExisting.isEmpty()) {
                kind = "delete";
                a = pick(ownExisting); // deleted
                b = pick(shared);      // receives its money
            }
            else if (r < sc.deletePct + sc.recreatePct && !ownDeleted.isEmpty()) {
                kind = "recreate";
                a = pick(ownDeleted);  // created
                b = pick(shared);      // pays for it
            }
            else {
                kind = "transfer";
                List<Acct> pool = new ArrayList<>(shared);
                pool.addAll(ownExisting);
                a = pick(pool);        // from
                do {
                    b = pick(pool);    // to
                }
                while (b == a);
            }
            run(phase, kind, a, b, drawn, rollback);
            if (sc.extras) {
                if (rnd.nextInt(100) < sc.shelfPct)
                    shelf(phase);
                if (rnd.nextInt(100) < sc.eventPct)
                    event(phase);
            }
        }

        /**
         * A shelf transaction: a blob and its note written (a new value of a new size) or removed
         * together, and with solo, one of its counters raised; rolled back like the transfers.
         */
        private void shelf(int phase) {
            int id = rnd.nextInt(sc.shelfKeys);
            boolean remove = rnd.nextInt(100) < 15;
            boolean large = rnd.nextInt(3) == 0;
            int len = large ? 4200 + rnd.nextInt(sc.maxBlobBytes - 4200) : 50 + rnd.nextInt(2000);
            boolean rollback = rnd.nextInt(100) < sc.rollbackPct;
            int soloKey = sc.hasSolo() ? rnd.nextInt(sc.soloKeys) : -1;
            int mySeq = seq++;
            List<Object> keys = new ArrayList<>();
            keys.add(Json.obj("cache", sc.blobsCache, "type", "blob", "value", id));
            keys.add(Json.obj("cache", sc.notesCache, "type", "string", "value", "note-" + id));
            Map<String, Object> rec = Json.obj("near", null, "outcome", null, "origin", origin, "kind",
                remove ? "shelf-remove" : "shelf-put", "phase", phase, "worker", w, "seq", mySeq, "keys", keys);
            txCount.incrementAndGet();
            try (Transaction tx = ig.transactions().txStart(PESSIMISTIC, SERIALIZABLE, 15_000, 3)) {
                rec.put("near", nearOf(tx));
                if (remove) {
                    cache(ig, sc.blobsCache).remove(new BlobKey(id));
                    cache(ig, sc.notesCache).remove("note-" + id);
                }
                else {
                    cache(ig, sc.blobsCache).put(new BlobKey(id), blobBytes(len, seed * 7919 + 1_000_003L * (w + 1) + mySeq));
                    cache(ig, sc.notesCache).put("note-" + id, "note " + id + " by " + origin + " #" + mySeq);
                }
                if (soloKey >= 0) {
                    Long v = (Long)cache(ig, sc.soloCache).get(soloKey);
                    cache(ig, sc.soloCache).put(soloKey, (v == null ? 0 : v) + 1);
                    keys.add(Json.obj("cache", sc.soloCache, "type", "int", "value", soloKey));
                }
                if (rollback) {
                    tx.rollback();
                    rec.put("outcome", "rolled_back");
                    rec.put("explicit_rollback", true);
                }
                else {
                    tx.commit();
                    rec.put("outcome", "committed");
                }
            }
            catch (Exception e) {
                rec.put("outcome", "rolled_back");
                rec.put("error", e.getClass().getName() + ": " + e.getMessage());
            }
            txLog.add(rec);
        }

        /** An atomic write of events, outside any transaction: a put (most often) or a remove. */
        private void event(int phase) {
            long key = 1_000_000L + rnd.nextInt(sc.eventKeys);
            boolean remove = rnd.nextInt(100) < 20;
            int mySeq = seq++;
            Map<String, Object> rec = Json.obj("near", null, "outcome", null, "origin", origin, "kind",
                remove ? "event-remove" : "event-put", "phase", phase, "worker", w, "seq", mySeq,
                "keys", List.of(Json.obj("cache", sc.eventsCache, "type", "long", "value", key)));
            try {
                if (remove)
                    cache(ig, sc.eventsCache).remove(key);
                else
                    cache(ig, sc.eventsCache).put(key, "event " + key + " by " + origin + " #" + mySeq);
                rec.put("outcome", "committed");
            }
            catch (Exception e) {
                rec.put("outcome", "unknown");
                rec.put("error", e.getClass().getName() + ": " + e.getMessage());
            }
            txLog.add(rec);
        }

        private void run(int phase, String kind, Acct a, Acct b, long drawn, boolean rollback) {
            List<Object> keys = new ArrayList<>();
            keys.add(acctObj(a));
            keys.add(acctObj(b));
            Map<String, Object> rec = Json.obj("near", null, "outcome", null, "origin", origin, "kind", kind,
                "phase", phase, "worker", w, "seq", seq++, "keys", keys, "amount", null);
            txCount.incrementAndGet();

            List<Acct> order = new ArrayList<>(List.of(a, b));
            order.sort(Comparator.comparing(x -> x.sortKey));

            boolean committing = false;
            try (Transaction tx = ig.transactions().txStart(PESSIMISTIC, SERIALIZABLE, 15_000, 2)) {
                rec.put("near", nearOf(tx));
                Map<String, Long> bal = new HashMap<>();
                for (Acct x : order)
                    bal.put(x.sortKey, balanceOf(cache(ig, cacheName(x)).get(x.key)));
                if (sc.inTxPauseMs > 0)
                    Thread.sleep(sc.inTxPauseMs);
                Long ba = bal.get(a.sortKey);
                Long bb = bal.get(b.sortKey);
                long amount;
                switch (kind) {
                    case "transfer":
                        if (ba == null || bb == null)
                            throw new IllegalStateException("account missing in a transfer: " + a + " " + b);
                        amount = Math.min(drawn, ba);
                        cache(ig, cacheName(a)).put(a.key, valueFor(a, ba - amount));
                        cache(ig, cacheName(b)).put(b.key, valueFor(b, bb + amount));
                        break;
                    case "delete":
                        if (ba == null || bb == null)
                            throw new IllegalStateException("account missing in a delete: " + a + " " + b);
                        amount = ba;
                        cache(ig, cacheName(b)).put(b.key, valueFor(b, bb + amount));
                        cache(ig, cacheName(a)).remove(a.key);
                        break;
                    default: // recreate
                        if (ba != null || bb == null)
                            throw new IllegalStateException("unexpected state in a re-create: " + a + " " + b);
                        amount = Math.min(drawn, bb);
                        cache(ig, cacheName(b)).put(b.key, valueFor(b, bb - amount));
                        cache(ig, cacheName(a)).put(a.key, valueFor(a, amount));
                }
                rec.put("amount", amount);
                if (rollback) {
                    tx.rollback();
                    rec.put("outcome", "rolled_back");
                    rec.put("explicit_rollback", true);
                }
                else {
                    committing = true;
                    tx.commit();
                    rec.put("outcome", "committed");
                    rec.put("one_phase_commit", onePhase(tx));
                    if (kind.equals("delete"))
                        exists.put(a.sortKey, false);
                    else if (kind.equals("recreate"))
                        exists.put(a.sortKey, true);
                }
            }
            catch (Exception e) {
                boolean rolledBack = !committing || e instanceof TransactionRollbackException
                    || e.getCause() instanceof TransactionRollbackException;
                rec.put("outcome", rolledBack ? "rolled_back" : "unknown");
                rec.put("error", e.getClass().getName() + ": " + e.getMessage());
                if (!rolledBack && !kind.equals("transfer"))
                    resync(a);
            }
            txLog.add(rec);
        }

        /** After an unknown outcome, learns from the cluster whether the account exists. */
        private void resync(Acct a) {
            for (int i = 0; i < 50; i++) {
                try {
                    exists.put(a.sortKey, cache(ig, cacheName(a)).containsKey(a.key));
                    return;
                }
                catch (Exception e) {
                    try {
                        Thread.sleep(200);
                    }
                    catch (InterruptedException ie) {
                        Thread.currentThread().interrupt();
                        return;
                    }
                }
            }
        }
    }
}
