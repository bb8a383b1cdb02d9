package org.walcut.ignite;

/** The value type of the "vault" cache; Ignite stores it as a binary object. */
public class Account {
    /** Money in the account. */
    public long balance;

    /** Who holds it (a label; never changes). */
    public String owner;

    public Account() {
    }

    public Account(long balance, String owner) {
        this.balance = balance;
        this.owner = owner;
    }
}
