package org.walcut.ignite;

import java.io.File;
import java.util.ArrayList;
import java.util.List;
import org.apache.ignite.internal.pagemem.wal.WALIterator;
import org.apache.ignite.internal.pagemem.wal.record.WALRecord;
import org.apache.ignite.internal.processors.cache.persistence.wal.WALPointer;
import org.apache.ignite.internal.processors.cache.persistence.wal.reader.IgniteWalIteratorFactory;
import org.apache.ignite.internal.processors.cache.persistence.wal.reader.IgniteWalIteratorFactory.IteratorParametersBuilder;
import org.apache.ignite.lang.IgniteBiTuple;
import org.apache.ignite.logger.NullLogger;

/**
 * Ignite's own reading of WAL segment files, timed inside the process (tests/bench/dump_vs_ignite.sh):
 * its standalone iterator over the files given, each record's toString() (what IgniteWalConverter
 * prints), best of ROUNDS. Prints one line: records, characters of text, seconds of the best round.
 *
 *   read-wal WORK_DIR FOLDER ROUNDS FILE...
 */
final class WalReadBench {
    private WalReadBench() {
    }

    static void main(String[] args) throws Exception {
        File work = new File(args[0]);
        String folder = args[1];
        int rounds = Integer.parseInt(args[2]);
        List<File> files = new ArrayList<>();
        for (int i = 3; i < args.length; i++)
            files.add(new File(args[i]));
        // The reader's standalone Ignite context works in a folder of its own, not in the caller's.
        File readerWork = java.nio.file.Files.createTempDirectory("walcut-read-wal").toFile();
        long records = 0;
        long chars = 0;
        double best = Double.MAX_VALUE;
        for (int r = 0; r < rounds; r++) {
            long n = 0;
            long c = 0;
            long t0 = System.nanoTime();
            IteratorParametersBuilder params = new IteratorParametersBuilder()
                .log(new NullLogger())
                .filesOrDirs(files.toArray(new File[0]))
                .keepBinary(true)
                .pageSize(4096)
                .binaryMetadataFileStoreDir(new File(work, "db/binary_meta/" + folder))
                .marshallerMappingFileStoreDir(new File(work, "db/marshaller"))
                .igniteConfigurationModifier(cfg -> cfg.setWorkDirectory(readerWork.getAbsolutePath()));
            try (WALIterator it = new IgniteWalIteratorFactory(new NullLogger()).iterator(params)) {
                while (it.hasNext()) {
                    IgniteBiTuple<WALPointer, WALRecord> t = it.next();
                    c += t.get2().toString().length();
                    n++;
                }
            }
            double s = (System.nanoTime() - t0) / 1e9;
            best = Math.min(best, s);
            records = n;
            chars = c;
        }
        System.out.printf("records %d chars %d best %.4f%n", records, chars, best);
        try (java.util.stream.Stream<java.nio.file.Path> walk = java.nio.file.Files.walk(readerWork.toPath())) {
            walk.sorted(java.util.Comparator.reverseOrder()).map(java.nio.file.Path::toFile).forEach(File::delete);
        }
    }
}
