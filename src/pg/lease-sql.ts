/**
 * Whether a URL's lease still runs, in SQL, judged on the server's clock at the statement (not `now()`, the
 * transaction's start): every query that asks agrees, so a claim that waited on a lock sees a lease run out
 * exactly when its politeness read did. `row` prefixes the columns (`u.`) where the query names the table.
 */
export const leaseLive = (row = '') => `(${row}state = 'leased' AND ${row}lease_until > clock_timestamp())`;

/** A lease its holder let run out (it died, or lost its connection): the URL is anyone's again. */
export const leaseRunOut = (row = '') => `(${row}state = 'leased' AND ${row}lease_until <= clock_timestamp())`;
