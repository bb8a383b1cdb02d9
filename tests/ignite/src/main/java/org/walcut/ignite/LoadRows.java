package org.walcut.ignite;

import java.io.BufferedReader;
import java.io.FileReader;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.ignite.Ignite;
import org.apache.ignite.IgniteCache;
import org.apache.ignite.IgniteDataStreamer;
import org.apache.ignite.Ignition;
import org.apache.ignite.configuration.IgniteConfiguration;
import org.apache.ignite.spi.discovery.tcp.TcpDiscoverySpi;
import org.apache.ignite.spi.discovery.tcp.ipfinder.vm.TcpDiscoveryVmIpFinder;

/**
 * Loads the rows {@code walcut data --format jsonl} prints (of a restore, or of a full snapshot) back
 * into Apache Ignite, one {@link IgniteDataStreamer} per cache: the README's example of putting
 * restored data into a cluster.
 *
 * <pre>
 *   tests/ignite/run load-rows ROWS.jsonl [HOST:PORT ...]
 * </pre>
 *
 * With addresses, it joins that cluster as a client and streams into its caches (made, with the
 * defaults, where missing). With none, it starts one in-memory server node of its own, loads into it,
 * and prints per cache the keys it holds and the sum of its long values: what the harness checks
 * against the restore. A row of each copy comes in (a primary's and its backups'); a key is put once
 * per copy, with the same value. Keys and values walcut prints as plain values (int, long, short,
 * byte, boolean, double, float, char, String) are loaded; the others (binary objects, arrays) need
 * the application's own classes, and are counted as skipped.
 */
public final class LoadRows {
    private LoadRows() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 1) {
            System.err.println("usage: load-rows ROWS.jsonl [HOST:PORT ...]");
            System.exit(2);
        }
        List<String> addresses = new ArrayList<>(List.of(args).subList(1, args.length));
        boolean own = addresses.isEmpty();
        if (own)
            addresses.add("127.0.0.1:47700..47709");

        TcpDiscoveryVmIpFinder finder = new TcpDiscoveryVmIpFinder();
        finder.setAddresses(addresses);
        TcpDiscoverySpi disco = new TcpDiscoverySpi();
        disco.setIpFinder(finder);
        if (own) {
            disco.setLocalAddress("127.0.0.1");
            disco.setLocalPort(47700);
            disco.setLocalPortRange(10);
        }
        IgniteConfiguration cfg = new IgniteConfiguration()
            .setIgniteInstanceName("load-rows")
            .setClientMode(!own)
            .setDiscoverySpi(disco)
            .setGridLogger(new org.apache.ignite.logger.java.JavaLogger())
            .setMetricsLogFrequency(0);
        if (own)
            cfg.setLocalHost("127.0.0.1");
        // The node's work directory (Ignite's default: ./ignite/work, and a README beside it) in
        // a temporary directory removed at the end, not in the caller's current directory.
        java.nio.file.Path work = java.nio.file.Files.createTempDirectory("walcut-load-rows");
        cfg.setWorkDirectory(work.toString());
        try {
            load(cfg, args[0], own);
        }
        finally {
            try (java.util.stream.Stream<java.nio.file.Path> paths = java.nio.file.Files.walk(work)) {
                paths.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    /** Streams the rows of {@code rowsFile} into the cluster {@code cfg} joins (or is, when {@code own}). */
    private static void load(IgniteConfiguration cfg, String rowsFile, boolean own) throws Exception {

        Map<String, IgniteDataStreamer<Object, Object>> streamers = new TreeMap<>();
        long rows = 0;
        long skipped = 0;
        try (Ignite ignite = Ignition.start(cfg);
             BufferedReader in = new BufferedReader(new FileReader(rowsFile))) {
            for (String line; (line = in.readLine()) != null; ) {
                if (line.isEmpty())
                    continue;
                Map<String, String> row = Json.flatObject(line);
                Object key = plain(row.get("key_class"), row.get("key"));
                Object value = plain(row.get("value_class"), row.get("value"));
                String cache = row.getOrDefault("cache_name", "");
                if (cache.isEmpty())
                    cache = "cache-" + row.get("cache");
                if (key == null || value == null) {
                    skipped++;
                    continue;
                }
                IgniteDataStreamer<Object, Object> s = streamers.get(cache);
                if (s == null) {
                    ignite.getOrCreateCache(cache);
                    s = ignite.dataStreamer(cache);
                    streamers.put(cache, s);
                }
                s.addData(key, value);
                rows++;
            }
            for (IgniteDataStreamer<Object, Object> s : streamers.values())
                s.close();
            System.out.println("loaded " + rows + " row(s) into " + streamers.size() + " cache(s), skipped " + skipped);
            if (own) {
                for (String name : streamers.keySet()) {
                    IgniteCache<Object, Object> c = ignite.cache(name);
                    long keys = 0;
                    long sum = 0;
                    for (javax.cache.Cache.Entry<Object, Object> e : c) {
                        keys++;
                        if (e.getValue() instanceof Long)
                            sum += (Long)e.getValue();
                    }
                    System.out.println("cache " + name + ": " + keys + " key(s), sum " + sum);
                }
            }
        }
    }

    /** A value walcut printed as text, as its Java class; null for one that needs the application's classes. */
    static Object plain(String cls, String text) {
        if (cls == null || text == null)
            return null;
        switch (cls) {
            case "int": return Integer.valueOf(text);
            case "long": return Long.valueOf(text);
            case "short": return Short.valueOf(text);
            case "byte": return Byte.valueOf(text);
            case "boolean": return Boolean.valueOf(text);
            case "double": return Double.valueOf(text);
            case "float": return Float.valueOf(text);
            case "char": return text.isEmpty() ? null : text.charAt(0);
            case "string":
            case "String": return text;
            default: return null;
        }
    }
}
