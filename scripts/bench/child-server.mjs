// How a bench site runs: as a child process of the bench (it says `ready` with its port, answers `stats`
// and `reset` messages, and never outlives the bench), or by hand (it prints `ready` as a JSON line).

/**
 * Listens on 127.0.0.1:`port` and serves until stopped. `ready` is added to the ready message;
 * `onListening(port)` runs before it is sent; `stats()` and `reset()` answer the bench's messages;
 * `onStandalone(port)` runs when no bench started it.
 */
export function serveAsChild(server, port, { ready = {}, stats, reset, onListening, onStandalone }) {
  server.keepAliveTimeout = 60_000;
  const stop = () => {
    server.close();
    server.closeAllConnections();
    process.exit(0);
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  server.listen(port, '127.0.0.1', () => {
    const message = { type: 'ready', port: server.address().port, pid: process.pid, ...ready };
    onListening?.(message.port);
    if (process.send) {
      process.send(message);
      process.on('disconnect', stop); // the bench is gone: never outlive it
      process.on('message', (asked) => {
        if (asked?.type === 'reset') reset();
        if (asked?.type === 'stats' || asked?.type === 'reset') process.send({ type: 'stats', stats: stats() });
      });
    } else {
      process.stdout.write(`${JSON.stringify(message)}\n`);
      onStandalone?.(message.port);
    }
  });
}
