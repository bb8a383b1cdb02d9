package org.walcut.ignite;

import java.io.File;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.zip.CRC32;
import org.apache.ignite.Ignite;
import org.apache.ignite.cluster.ClusterNode;
import org.apache.ignite.internal.IgniteEx;
import org.apache.ignite.internal.management.cache.IdleVerifyResultV2;
import org.apache.ignite.internal.processors.cache.persistence.snapshot.IgniteSnapshotManager;
import org.apache.ignite.internal.processors.cache.persistence.snapshot.SnapshotPartitionsVerifyTaskResult;
import org.apache.ignite.internal.processors.cache.verify.PartitionHashRecordV2;
import org.apache.ignite.internal.management.cache.PartitionKeyV2;

/**
 * Ignite's own check of a full snapshot (what control.sh --snapshot check NAME runs), on the sound
 * snapshot and on two damaged ones, each damage undone after its check:
 * <ul>
 * <li>page_byte: one byte of a Long value in a data page of server-1's bank cache flipped, the page's
 * CRC left as it was;</li>
 * <li>copy_differs: the same byte flipped and the page's CRC written anew, so that the page is sound
 * and server-1's copy of that partition differs from its backup's.</li>
 * </ul>
 * Each damage is recorded as byte patches of a file under the node's work directory, so that a test can
 * make the same copy of a fixture and hold walcut's verdict to Ignite's.
 */
final class SnapshotCheck {
    private final Consumer<String> progress;
    private final Ignite crd;
    private final Cluster cluster;
    private final Scenario sc;
    private final String name;

    SnapshotCheck(Consumer<String> progress, Ignite crd, Cluster cluster, Scenario sc, String name) {
        this.progress = progress;
        this.crd = crd;
        this.cluster = cluster;
        this.sc = sc;
        this.name = name;
    }

    /** One byte range of a file: where, and its bytes before and after. */
    static final class Patch {
        final String file;
        final long offset;
        final byte[] before;
        final byte[] after;

        Patch(String file, long offset, byte[] before, byte[] after) {
            this.file = file;
            this.offset = offset;
            this.before = before;
            this.after = after;
        }

        Map<String, Object> json() {
            return Json.obj("file", file, "offset", offset, "before", HexFormat.of().formatHex(before),
                "after", HexFormat.of().formatHex(after));
        }
    }

    Map<String, Object> run() throws Exception {
        Map<String, Object> res = Json.obj("sound", check());
        String node = Scenario.serverId(1);
        List<Patch> flip = damage(node, false);
        if (flip == null) {
            res.put("damage_error", "no data page with a Long value found in " + node + "'s bank cache");
            return res;
        }
        res.put("page_byte", checkWith(node, flip));
        res.put("copy_differs", checkWith(node, damage(node, true)));
        progress.accept("Ignite's snapshot check of '" + name + "': sound " + ok(res.get("sound"))
            + ", one byte changed " + ok(res.get("page_byte")) + ", a copy differing " + ok(res.get("copy_differs")));
        return res;
    }

    @SuppressWarnings("unchecked")
    private static String ok(Object m) {
        return Boolean.TRUE.equals(((Map<String, Object>)m).get("ok")) ? "ok" : "not ok";
    }

    private Map<String, Object> checkWith(String node, List<Patch> patches) throws Exception {
        File work = cluster.workDir(node);
        apply(work, patches, true);
        Map<String, Object> r;
        try {
            r = check();
        }
        finally {
            apply(work, patches, false);
        }
        List<Object> p = new ArrayList<>();
        for (Patch x : patches)
            p.add(x.json());
        return Json.obj("node", node, "patches", p, "result", r, "ok", r.get("ok"));
    }

    private static void apply(File work, List<Patch> patches, boolean forward) throws IOException {
        for (Patch p : patches) {
            try (RandomAccessFile f = new RandomAccessFile(new File(work, p.file), "rw")) {
                f.seek(p.offset);
                f.write(forward ? p.after : p.before);
                f.getFD().sync();
            }
        }
    }

    /** Ignite's verdict: {ok, exceptions, counter_conflicts, hash_conflicts, text} or {ok: false, error}. */
    private Map<String, Object> check() {
        IgniteSnapshotManager mgr = ((IgniteEx)crd).context().cache().context().snapshotMgr();
        try {
            SnapshotPartitionsVerifyTaskResult r = mgr.checkSnapshot(name, null).get(120_000);
            IdleVerifyResultV2 v = r.idleVerifyResult();
            StringBuilder text = new StringBuilder();
            r.print(text::append);
            List<Object> exceptions = new ArrayList<>();
            if (v != null) {
                for (Map.Entry<ClusterNode, Exception> e : v.exceptions().entrySet()) {
                    exceptions.add(Json.obj("consistent_id", String.valueOf(e.getKey().consistentId()),
                        "class", e.getValue().getClass().getName(), "message", e.getValue().getMessage()));
                }
            }
            boolean ok = v != null && v.exceptions().isEmpty() && !v.hasConflicts();
            return Json.obj("ok", ok, "exceptions", exceptions,
                "counter_conflicts", v == null ? List.of() : conflicts(v.counterConflicts()),
                "hash_conflicts", v == null ? List.of() : conflicts(v.hashConflicts()),
                "text", text.toString());
        }
        catch (Exception e) {
            return Json.obj("ok", false, "error", e.getClass().getName() + ": " + e.getMessage());
        }
    }

    private static List<Object> conflicts(Map<PartitionKeyV2, List<PartitionHashRecordV2>> m) {
        List<Object> res = new ArrayList<>();
        for (Map.Entry<PartitionKeyV2, List<PartitionHashRecordV2>> e : m.entrySet()) {
            List<Object> copies = new ArrayList<>();
            for (PartitionHashRecordV2 r : e.getValue()) {
                copies.add(Json.obj("node", String.valueOf(r.consistentId()),
                    "counter", r.updateCounter() == null ? null : String.valueOf(r.updateCounter()),
                    "size", r.size(), "hash", r.partitionHash(), "ver_hash", r.partitionVersionsHash()));
            }
            res.add(Json.obj("group_id", e.getKey().groupId(), "group", e.getKey().groupName(),
                "partition", e.getKey().partitionId(), "copies", copies));
        }
        return res;
    }

    /**
     * The patches that flip the lowest byte of the first Long value found in a data page of the node's
     * bank cache in the snapshot (partitions in order), with the page's CRC written anew when asked.
     */
    private List<Patch> damage(String node, boolean fixCrc) throws IOException {
        String folder = node.replaceAll("[^a-zA-Z0-9]", "_");
        String rel = "snapshots/" + name + "/db/" + folder + "/cache-" + sc.bankCache;
        File dir = new File(cluster.workDir(node), rel);
        File[] parts = dir.listFiles((d, n) -> n.matches("part-\\d+\\.bin"));
        if (parts == null)
            return null;
        Arrays.sort(parts, (a, b) -> Integer.compare(partOf(a), partOf(b)));
        for (File f : parts) {
            byte[] bytes = Files.readAllBytes(f.toPath());
            ByteBuffer b = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
            int pageSize = b.getInt(13);
            for (int page = 0; (long)(page + 2) * pageSize <= bytes.length; page++) {
                int off = (page + 1) * pageSize; // a version 2 file: the header takes a page
                if ((b.getShort(off) & 0xFFFF) != 1 || (bytes[off + 50] & 0xFF) == 0)
                    continue;
                int item = off + (b.getShort(off + 54) & 0xFFFF);
                int len = b.getShort(item) & 0xFFFF;
                if ((len & 0x8000) != 0)
                    continue;
                int row = item + 2;
                int keyLen = b.getInt(row);
                int val = row + 5 + keyLen;
                if (keyLen < 0 || val + 14 > item + 2 + len || b.getInt(val) != 9 || bytes[val + 4] != 1
                    || bytes[val + 5] != 4)
                    continue;
                int at = val + 6; // the long's lowest byte
                String file = rel + "/" + f.getName();
                List<Patch> res = new ArrayList<>();
                byte[] page1 = Arrays.copyOfRange(bytes, off, off + pageSize);
                res.add(new Patch(file, at, new byte[] {bytes[at]}, new byte[] {(byte)(bytes[at] ^ 1)}));
                if (fixCrc) {
                    page1[at - off] ^= 1;
                    Arrays.fill(page1, 4, 8, (byte)0);
                    CRC32 crc = new CRC32();
                    crc.update(page1);
                    byte[] stored = ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt((int)~crc.getValue())
                        .array();
                    res.add(new Patch(file, off + 4, Arrays.copyOfRange(bytes, off + 4, off + 8), stored));
                }
                return res;
            }
        }
        return null;
    }

    private static int partOf(File f) {
        String n = f.getName();
        return Integer.parseInt(n.substring(5, n.length() - 4));
    }
}
