package org.walcut.ignite;

import java.io.BufferedWriter;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import org.apache.ignite.IgniteLogger;
import org.apache.ignite.binary.BinaryObject;
import org.apache.ignite.binary.BinaryType;
import org.apache.ignite.internal.pagemem.wal.WALIterator;
import org.apache.ignite.internal.pagemem.wal.record.CacheState;
import org.apache.ignite.internal.pagemem.wal.record.CheckpointRecord;
import org.apache.ignite.internal.pagemem.wal.record.DataEntry;
import org.apache.ignite.internal.pagemem.wal.record.DataRecord;
import org.apache.ignite.internal.pagemem.wal.record.IncrementalSnapshotFinishRecord;
import org.apache.ignite.internal.pagemem.wal.record.IncrementalSnapshotStartRecord;
import org.apache.ignite.internal.pagemem.wal.record.RollbackRecord;
import org.apache.ignite.internal.pagemem.wal.record.TimeStampRecord;
import org.apache.ignite.internal.pagemem.wal.record.TxRecord;
import org.apache.ignite.internal.pagemem.wal.record.UnwrapDataEntry;
import org.apache.ignite.internal.pagemem.wal.record.WALRecord;
import org.apache.ignite.internal.pagemem.wal.record.delta.ClusterSnapshotRecord;
import org.apache.ignite.internal.processors.cache.CacheObject;
import org.apache.ignite.internal.processors.cache.persistence.wal.WALPointer;
import org.apache.ignite.internal.processors.cache.persistence.wal.reader.IgniteWalIteratorFactory;
import org.apache.ignite.internal.processors.cache.persistence.wal.reader.IgniteWalIteratorFactory.IteratorParametersBuilder;
import org.apache.ignite.internal.processors.cache.version.GridCacheVersion;
import org.apache.ignite.lang.IgniteBiTuple;

/**
 * Ignite's own reading of a node's WAL: each work and archive segment (.wal and .wal.zip) is read
 * separately by Ignite's standalone iterator and written as one JSON object per record.
 */
final class WalDump {
    /**
     * Records per type, each record counted once: a segment can be read from more than one file (a work
     * file, its raw archive copy and its .wal.zip), and a record is known by its segment and the offset
     * in its own header (for a record read from a .wal.zip, that is its offset in the raw segment).
     */
    final Map<String, Integer> perType = new TreeMap<>();

    /** Records per type, summed over every file read. */
    final Map<String, Integer> perTypeAllFiles = new TreeMap<>();

    private final Set<String> seen = new HashSet<>();

    /** Per file: records read and, if the iterator stopped with an error, the error. */
    final List<Map<String, Object>> files = new ArrayList<>();

    private final IgniteLogger log;

    WalDump(IgniteLogger log) {
        this.log = log;
    }

    /** The segment files of one node, work directory first, then the archive, each sorted by name. */
    static List<File> segmentFiles(File workDir, String folder) {
        List<File> res = new ArrayList<>();
        Set<String> archived = new HashSet<>();
        for (File dir : new File[] {new File(workDir, "db/wal/" + folder), new File(workDir, "db/wal/archive/" + folder)}) {
            File[] fs = dir.listFiles((d, n) -> n.endsWith(".wal") || n.endsWith(".wal.zip"));
            if (fs == null)
                continue;
            Arrays.sort(fs);
            res.addAll(Arrays.asList(fs));
            if (dir.getPath().contains("archive"))
                for (File f : fs)
                    archived.add(f.getName());
        }
        // The increments' copies of segments Ignite has since deleted from the archive (a small
        // maxWalArchiveSize): the only place their records still are.
        File[] snaps = new File(workDir, "snapshots").listFiles(File::isDirectory);
        if (snaps != null) {
            Arrays.sort(snaps);
            for (File snap : snaps) {
                File[] incs = new File(snap, "increments").listFiles(File::isDirectory);
                if (incs == null)
                    continue;
                Arrays.sort(incs);
                for (File inc : incs) {
                    File[] fs = new File(inc, "db/wal/" + folder).listFiles((d, n) -> n.endsWith(".wal.zip")
                        && !archived.contains(n));
                    if (fs == null)
                        continue;
                    Arrays.sort(fs);
                    for (File f : fs) {
                        archived.add(f.getName());
                        res.add(f);
                    }
                }
            }
        }
        return res;
    }

    /** Work directory for the reader's own standalone Ignite context. */
    File readerWorkDir;

    void dumpNode(File workDir, String folder, File out) throws IOException {
        File binMeta = new File(workDir, "db/binary_meta/" + folder);
        File marshaller = new File(workDir, "db/marshaller");
        String root = workDir.getCanonicalPath() + File.separator;

        try (BufferedWriter w = Files.newBufferedWriter(out.toPath(), StandardCharsets.UTF_8)) {
            for (File f : segmentFiles(workDir, folder)) {
                String rel = f.getCanonicalPath().substring(root.length()).replace(File.separatorChar, '/');
                int n = 0;
                String err = null;
                IteratorParametersBuilder params = new IteratorParametersBuilder()
                    .log(log)
                    .filesOrDirs(f)
                    .keepBinary(true)
                    .pageSize(4096)
                    .binaryMetadataFileStoreDir(binMeta)
                    .marshallerMappingFileStoreDir(marshaller);
                if (readerWorkDir != null)
                    params.igniteConfigurationModifier(cfg -> cfg.setWorkDirectory(readerWorkDir.getAbsolutePath()));
                try (WALIterator it = new IgniteWalIteratorFactory(log).iterator(params)) {
                    while (it.hasNext()) {
                        IgniteBiTuple<WALPointer, WALRecord> t = it.next();
                        Map<String, Object> line = record(rel, t.get1(), t.get2());
                        w.write(Json.write(line));
                        w.write('\n');
                        String type = t.get2().type().name();
                        perTypeAllFiles.merge(type, 1, Integer::sum);
                        WALPointer at = t.get2().position() != null ? t.get2().position() : t.get1();
                        if (seen.add(t.get1().index() + ":" + at.fileOffset()))
                            perType.merge(type, 1, Integer::sum);
                        n++;
                    }
                }
                catch (Exception e) {
                    err = e.getClass().getName() + ": " + e.getMessage();
                    log.warning("reading " + rel + " stopped after " + n + " records: " + err, e);
                }
                files.add(Json.obj("file", rel, "records", n, "error", err));
            }
        }
    }

    static String ver(GridCacheVersion v) {
        return Workload.ver(v);
    }

    static Map<String, Object> ptr(WALPointer p) {
        if (p == null)
            return null;
        return Json.obj("index", p.index(), "offset", p.fileOffset(), "length", p.length());
    }

    static Map<String, Object> record(String file, WALPointer p, WALRecord rec) {
        Map<String, Object> m = Json.obj(
            "file", file,
            "segment", p.index(),
            "offset", p.fileOffset(),
            "length", p.length(),
            "type", rec.type().name());

        // The iterator gives the record's place in the file it read (for a .wal.zip: in the decompressed
        // entry); the record's own header keeps the offset it had in the raw segment.
        WALPointer stored = rec.position();
        if (stored != null && stored.fileOffset() != p.fileOffset())
            m.put("stored_offset", stored.fileOffset());

        if (rec instanceof TimeStampRecord)
            m.put("timestamp", ((TimeStampRecord)rec).timestamp());

        if (rec instanceof TxRecord) {
            TxRecord tx = (TxRecord)rec;
            m.put("state", tx.state() == null ? null : tx.state().name());
            m.put("near", ver(tx.nearXidVersion()));
            m.put("write", ver(tx.writeVersion()));
            List<Object> parts = new ArrayList<>();
            Map<Short, Collection<Short>> pn = tx.participatingNodes();
            if (pn != null) {
                for (Map.Entry<Short, Collection<Short>> e : pn.entrySet())
                    parts.add(Json.obj("primary", e.getKey(), "backups", new ArrayList<>(e.getValue())));
            }
            m.put("participants", parts);
        }
        else if (rec instanceof DataRecord) {
            DataRecord dr = (DataRecord)rec;
            List<Object> entries = new ArrayList<>();
            for (int i = 0; i < dr.entryCount(); i++)
                entries.add(entry(dr.get(i)));
            m.put("entries", entries);
        }
        else if (rec instanceof RollbackRecord) {
            RollbackRecord rr = (RollbackRecord)rec;
            m.put("group_id", rr.groupId());
            m.put("partition", rr.partitionId());
            m.put("start", rr.start());
            m.put("range", rr.range());
        }
        else if (rec instanceof ClusterSnapshotRecord)
            m.put("name", ((ClusterSnapshotRecord)rec).clusterSnapshotName());
        else if (rec instanceof IncrementalSnapshotStartRecord)
            m.put("id", str(((IncrementalSnapshotStartRecord)rec).id()));
        else if (rec instanceof IncrementalSnapshotFinishRecord) {
            IncrementalSnapshotFinishRecord fr = (IncrementalSnapshotFinishRecord)rec;
            m.put("id", str(fr.id()));
            m.put("included", versions(fr.included()));
            m.put("excluded", versions(fr.excluded()));
        }
        else if (rec instanceof CheckpointRecord) {
            CheckpointRecord cp = (CheckpointRecord)rec;
            m.put("id", str(cp.checkpointId()));
            m.put("end", cp.end());
            m.put("mark", ptr(cp.checkpointMark()));
            List<Object> groups = new ArrayList<>();
            Map<Integer, CacheState> states = cp.cacheGroupStates();
            if (states != null) {
                for (Map.Entry<Integer, CacheState> e : new TreeMap<>(states).entrySet()) {
                    CacheState st = e.getValue();
                    List<Object> parts = new ArrayList<>();
                    for (int i = 0; i < st.size(); i++) {
                        parts.add(Json.obj("partition", st.partitionByIndex(i), "size", st.partitionSizeByIndex(i),
                            "counter", st.partitionCounterByIndex(i), "state", st.stateByIndex(i)));
                    }
                    groups.add(Json.obj("group_id", e.getKey(), "partitions", parts));
                }
            }
            m.put("groups", groups);
        }
        return m;
    }

    /** Versions of a Finish record; Ignite reads them into a set, so they are listed sorted. */
    static List<Object> versions(Collection<GridCacheVersion> vs) {
        List<GridCacheVersion> l = new ArrayList<>(vs);
        l.sort(null);
        List<Object> res = new ArrayList<>();
        for (GridCacheVersion v : l)
            res.add(ver(v));
        return res;
    }

    static String str(UUID u) {
        return u == null ? null : u.toString();
    }

    static Map<String, Object> entry(DataEntry e) {
        Map<String, Object> m = Json.obj(
            "cache_id", e.cacheId(),
            "op", e.op() == null ? null : e.op().name(),
            "near", ver(e.nearXidVersion()),
            "write", ver(e.writeVersion()),
            "partition", e.partitionId(),
            "counter", e.partitionCounter(),
            "expire", e.expireTime(),
            "flags", e.flags());
        Object uk = null;
        Object uv = null;
        String ukErr = null;
        String uvErr = null;
        if (e instanceof UnwrapDataEntry) {
            try {
                uk = ((UnwrapDataEntry)e).unwrappedKey();
            }
            catch (RuntimeException ex) {
                ukErr = ex.toString();
            }
            try {
                uv = ((UnwrapDataEntry)e).unwrappedValue();
            }
            catch (RuntimeException ex) {
                uvErr = ex.toString();
            }
        }
        m.put("key", cacheObject(e.key(), uk, ukErr));
        m.put("value", e.value() == null ? null : cacheObject(e.value(), uv, uvErr));
        return m;
    }

    static Map<String, Object> cacheObject(CacheObject co, Object unwrapped, String unwrapErr) {
        if (co == null)
            return null;
        Map<String, Object> m = Json.obj("cache_object_type", co.cacheObjectType());
        String hex = null;
        try {
            hex = Json.hex(co.valueBytes(null));
        }
        catch (Exception ex) {
            m.put("hex_error", ex.toString());
        }
        m.put("hex", hex);
        m.put("java", unwrapped == null ? null : unwrapped.getClass().getName());
        m.put("value", jsonValue(unwrapped));
        if (unwrapErr != null)
            m.put("unwrap_error", unwrapErr);
        return m;
    }

    static Object jsonValue(Object v) {
        if (v == null || v instanceof Number || v instanceof String || v instanceof Boolean)
            return v;
        if (v instanceof BinaryObject) {
            BinaryObject bo = (BinaryObject)v;
            Map<String, Object> m = Json.obj();
            try {
                BinaryType t = bo.type();
                m.put("type_id", t.typeId());
                m.put("type_name", t.typeName());
                Map<String, Object> fields = Json.obj();
                List<String> names = new ArrayList<>(t.fieldNames());
                for (String f : names)
                    fields.put(f, jsonValue(bo.field(f)));
                m.put("fields", fields);
            }
            catch (RuntimeException ex) {
                m.put("error", ex.toString());
            }
            return m;
        }
        if (v instanceof byte[])
            return Json.hex((byte[])v);
        return v.toString();
    }
}
