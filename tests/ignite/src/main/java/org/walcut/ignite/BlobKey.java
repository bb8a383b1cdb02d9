package org.walcut.ignite;

import java.util.Objects;

/** The key type of the "blobs" cache; Ignite stores it as a binary object. */
public class BlobKey {
    /** Which blob. */
    public int id;

    /** A label derived from the id. */
    public String tag;

    public BlobKey() {
    }

    public BlobKey(int id) {
        this.id = id;
        this.tag = "blob-" + id;
    }

    @Override public boolean equals(Object o) {
        return o instanceof BlobKey && ((BlobKey)o).id == id && Objects.equals(((BlobKey)o).tag, tag);
    }

    @Override public int hashCode() {
        return Objects.hash(id, tag);
    }
}
