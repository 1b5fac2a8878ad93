// A module of its own, so the command line's signal handling loads this alone, not the library.
export { stopWorkerThreads } from '../pipeline/thread-stop.js';
