/**
 * Bytes that can be moved to another thread (put in a postMessage transfer list) without taking anything
 * else with them: the view itself when it is the whole of its buffer, else a copy of its bytes. Node cuts
 * small allocations from one shared pool, and moving a view of it would take the whole pool away.
 */
export function movableBytes(bytes: Uint8Array): Uint8Array {
  const whole = bytes.buffer instanceof ArrayBuffer && bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength;
  return whole ? bytes : new Uint8Array(bytes);
}
