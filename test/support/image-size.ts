import { PNG } from 'pngjs';

/** Width and height of a PNG or WebP image (the two types a screenshot is stored as), read from its header. */
export function imageSize(image: Buffer): { width: number; height: number } {
  if (image.subarray(0, 4).toString('latin1') === 'RIFF' && image.subarray(8, 12).toString('latin1') === 'WEBP') {
    const chunk = image.subarray(12, 16).toString('latin1');
    // Lossy: 14-bit sizes after the key frame's start code.
    if (chunk === 'VP8 ') return { width: image.readUInt16LE(26) & 0x3fff, height: image.readUInt16LE(28) & 0x3fff };
    if (chunk === 'VP8L') {
      const bits = image.readUInt32LE(21);
      return { width: (bits & 0x3fff) + 1, height: ((bits >>> 14) & 0x3fff) + 1 };
    }
    // Extended: 24-bit canvas sizes, minus one.
    if (chunk === 'VP8X') return { width: image.readUIntLE(24, 3) + 1, height: image.readUIntLE(27, 3) + 1 };
    throw new Error(`a WebP image with a ${chunk} chunk first`);
  }
  const png = PNG.sync.read(image);
  return { width: png.width, height: png.height };
}
