import type pg from 'pg';

export declare const POSTGRES_INSTALLED: boolean;
export declare const POSTGRES_INSTALL: string;

export interface Postgres {
  /** postgres://postgres@127.0.0.1:PORT/postgres */
  url: string;
  port: number;
  /** The cluster's temp dir (data, log, Unix socket). */
  dir: string;
  /** The postmaster's PID while it runs. */
  pid(): number | undefined;
  /** A fast shutdown: connections are cut, as when the server goes away. */
  stop(): Promise<void>;
  /** Starts it again on the same port, with the same data. */
  restart(): Promise<void>;
  /** Stops the server and removes its files. */
  destroy(): Promise<void>;
  /** postgres://postgres@127.0.0.1:PORT/<database> */
  urlOf(database: string): string;
  /** Creates a database and answers its URL. */
  createDatabase(name: string): Promise<string>;
  /** One query on a connection of its own (to the database `postgres`, or the one named). */
  query<T extends pg.QueryResultRow = Record<string, unknown>>(sql: string, params?: unknown[], database?: string): Promise<T[]>;
}

/** A throwaway PostgreSQL cluster on 127.0.0.1: trust auth, no fsync, its files in a temp dir. */
export declare function startPostgres(options?: { settings?: Record<string, string | number> }): Promise<Postgres>;
