package org.walcut.ignite;

import java.io.File;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.apache.ignite.Ignite;
import org.apache.ignite.Ignition;
import org.apache.ignite.cluster.ClusterState;
import org.apache.ignite.configuration.DataRegionConfiguration;
import org.apache.ignite.configuration.DataStorageConfiguration;
import org.apache.ignite.configuration.IgniteConfiguration;
import org.apache.ignite.configuration.WALMode;
import org.apache.ignite.failure.StopNodeFailureHandler;
import org.apache.ignite.internal.IgniteEx;
import org.apache.ignite.internal.processors.cache.GridCacheContext;
import org.apache.ignite.internal.processors.cache.IgniteInternalCache;
import org.apache.ignite.internal.processors.cache.distributed.dht.topology.GridDhtLocalPartition;
import org.apache.ignite.internal.processors.cache.distributed.dht.topology.GridDhtPartitionState;
import org.apache.ignite.spi.communication.tcp.TcpCommunicationSpi;
import org.apache.ignite.spi.discovery.tcp.TcpDiscoverySpi;
import org.apache.ignite.spi.discovery.tcp.ipfinder.vm.TcpDiscoveryVmIpFinder;

/** Starts and stops the nodes of one run, all in this JVM, all on 127.0.0.1. */
final class Cluster {
    private static final int PORT_RANGE = 10;

    final Scenario sc;

    /** Root of the live work directories: one sub-directory per consistent id. */
    final File runDir;

    private final int discoPort;

    private final int commPort;

    Cluster(Scenario sc, File runDir) throws IOException {
        this.sc = sc;
        this.runDir = runDir;
        int[] ports = freePorts();
        discoPort = ports[0];
        commPort = ports[1];
    }

    Cluster(Scenario sc, File runDir, int discoPort, int commPort) {
        this.sc = sc;
        this.runDir = runDir;
        this.discoPort = discoPort;
        this.commPort = commPort;
    }

    int discoPort() {
        return discoPort;
    }

    int commPort() {
        return commPort;
    }

    /** Two blocks of free ports on 127.0.0.1, so that no other cluster on the machine can be joined. */
    private static int[] freePorts() throws IOException {
        Random rnd = new Random();
        for (int attempt = 0; attempt < 200; attempt++) {
            int base = 20000 + rnd.nextInt(2000) * 10;
            if (blockFree(base, 2 * PORT_RANGE))
                return new int[] {base, base + PORT_RANGE};
        }
        throw new IOException("no free block of local ports found");
    }

    private static boolean blockFree(int base, int n) {
        InetAddress lo = InetAddress.getLoopbackAddress();
        for (int p = base; p < base + n; p++) {
            try (ServerSocket s = new ServerSocket(p, 1, lo)) {
                s.setReuseAddress(true);
            }
            catch (IOException e) {
                return false;
            }
        }
        return true;
    }

    File workDir(String consId) {
        return new File(runDir, consId);
    }

    IgniteConfiguration config(String consId, boolean client) {
        TcpDiscoveryVmIpFinder ipFinder = new TcpDiscoveryVmIpFinder();
        ipFinder.setAddresses(Collections.singletonList(
            "127.0.0.1:" + discoPort + ".." + (discoPort + PORT_RANGE - 1)));

        TcpDiscoverySpi disco = new TcpDiscoverySpi();
        disco.setIpFinder(ipFinder);
        disco.setLocalAddress("127.0.0.1");
        disco.setLocalPort(discoPort);
        disco.setLocalPortRange(PORT_RANGE);

        TcpCommunicationSpi comm = new TcpCommunicationSpi();
        comm.setLocalAddress("127.0.0.1");
        comm.setLocalPort(commPort);
        comm.setLocalPortRange(PORT_RANGE);

        IgniteConfiguration cfg = new IgniteConfiguration();
        cfg.setIgniteInstanceName(consId);
        cfg.setConsistentId(consId);
        cfg.setWorkDirectory(workDir(consId).getAbsolutePath());
        cfg.setLocalHost("127.0.0.1");
        cfg.setClientMode(client);
        cfg.setDiscoverySpi(disco);
        cfg.setCommunicationSpi(comm);
        cfg.setPeerClassLoadingEnabled(false);
        cfg.setMetricsLogFrequency(0);
        cfg.setFailureHandler(new StopNodeFailureHandler());
        cfg.setGridLogger(new org.apache.ignite.logger.java.JavaLogger());

        if (!client) {
            DataRegionConfiguration region = new DataRegionConfiguration();
            region.setName("default");
            region.setPersistenceEnabled(true);
            region.setInitialSize(Math.min(32L << 20, sc.regionMaxBytes));
            region.setMaxSize(sc.regionMaxBytes);

            DataStorageConfiguration ds = new DataStorageConfiguration();
            ds.setDefaultDataRegionConfiguration(region);
            ds.setWalMode(WALMode.LOG_ONLY);
            ds.setWalSegmentSize(sc.walSegmentSize);
            ds.setWalSegments(sc.walSegments);
            ds.setWalCompactionEnabled(sc.walCompaction);
            if (sc.maxWalArchiveSize > 0)
                ds.setMaxWalArchiveSize(sc.maxWalArchiveSize);
            ds.setCheckpointFrequency(sc.checkpointFrequencyMs);
            ds.setSystemDataRegionConfiguration(
                new org.apache.ignite.configuration.SystemDataRegionConfiguration()
                    .setInitialSize(16L << 20).setMaxSize(32L << 20));
            cfg.setDataStorageConfiguration(ds);
        }
        return cfg;
    }

    Ignite startServer(int i) {
        return Ignition.start(config(Scenario.serverId(i), false));
    }

    Ignite startClient(int i) {
        return Ignition.start(config(Scenario.clientId(i), true));
    }

    /** Starts the first {@code count} servers in this JVM. */
    List<Ignite> startServers(int count) {
        List<Ignite> res = new ArrayList<>();
        for (int i = 0; i < count; i++)
            res.add(startServer(i));
        return res;
    }

    /** Activates the cluster (the first activation sets the baseline to every server node). */
    static void activate(Ignite crd) {
        if (crd.cluster().state() != ClusterState.ACTIVE)
            crd.cluster().state(ClusterState.ACTIVE);
    }

    /**
     * Waits until every partition of the given caches is OWNING on every server of this JVM, none is
     * MOVING, and in the first server's view of the cluster every partition has all its owners.
     */
    static void awaitOwning(List<Ignite> servers, List<String> caches, int serverCount, long timeoutMs)
        throws InterruptedException {
        long deadline = System.currentTimeMillis() + timeoutMs;
        while (true) {
            boolean ok = servers.get(0).cluster().forServers().nodes().size() == serverCount;
            for (String name : caches) {
                IgniteInternalCache<?, ?> c = ok ? ((IgniteEx)servers.get(0)).cachex(name) : null;
                if (c == null) {
                    ok = false;
                    break;
                }
                GridCacheContext<?, ?> cctx = c.context();
                int copies = Math.min(serverCount, cctx.config().getBackups() + 1);
                for (int p = 0; p < cctx.affinity().partitions() && ok; p++)
                    ok = cctx.topology().owners(p).size() == copies;
            }
            outer:
            for (Ignite ig : ok ? servers : List.<Ignite>of()) {
                for (String name : caches) {
                    IgniteInternalCache<?, ?> c = ((IgniteEx)ig).cachex(name);
                    if (c == null) {
                        ok = false;
                        break outer;
                    }
                    GridCacheContext<?, ?> cctx = c.context();
                    for (GridDhtLocalPartition p : cctx.topology().localPartitions()) {
                        if (p.state() != GridDhtPartitionState.OWNING) {
                            ok = false;
                            break outer;
                        }
                    }
                    if (!cctx.preloader().rebalanceFuture().isDone()) {
                        ok = false;
                        break outer;
                    }
                }
            }
            if (ok)
                return;
            if (System.currentTimeMillis() > deadline)
                throw new IllegalStateException("partitions did not become OWNING in " + timeoutMs + " ms");
            Thread.sleep(100);
        }
    }
}
