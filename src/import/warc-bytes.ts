import { inflateWholeMember } from './inflate-whole-member.js';
import { MemberInflator, PUSH_BYTES } from './member-inflator.js';
import { nextWarcMember } from './next-warc-member.js';
import { openInput, type RandomAccess, type WarcInput } from './warc-source.js';

/** Raw bytes read from the file at a time. */
const READ_BYTES = 256 * 1024;

/** Inflated (or plain) bytes and where they come from: their gzip member's offset, or in a plain file their own. */
interface Piece {
  bytes: Uint8Array;
  /** How much of `bytes` was handed out. */
  used: number;
  origin: number;
}

/** A gzip member that does not inflate: where it starts and zlib's word for what is wrong. */
export interface DamagedMember {
  offset: number;
  reason: string;
}

/**
 * The bytes of a WARC file, plain or gzipped, as the record reader takes
 * them, with the offset each comes from (in a .warc.gz, its gzip member's).
 * Members are inflated one at a time, so a damaged one is known by its own
 * offset: reading stops there (`damaged`), the output of that member not yet
 * handed out is dropped, and `skipDamaged` goes on at the next member that
 * inflates whole into a WARC record. warcio's reader, by contrast, reads the
 * rest of the file as raw bytes after an inflate error.
 */
export class WarcBytes {
  private readonly pieces: Piece[] = [];
  private inflator: MemberInflator | undefined;
  private memberStart = 0;
  /** Next raw byte to read from the file. */
  private position = 0;
  private raw: Buffer = Buffer.alloc(0);
  private rawStart = 0;
  private lastOrigin = -1;
  private atEnd = false;
  private damage: DamagedMember | undefined;

  private constructor(
    private readonly file: RandomAccess,
    readonly gzip: boolean,
    private readonly size: number,
  ) {}

  static async open(input: WarcInput): Promise<WarcBytes> {
    const { bytes: file, size } = await openInput(input);
    try {
      const head = Buffer.alloc(2);
      const { bytesRead } = await file.read(head, 0, 2, 0);
      return new WarcBytes(file, bytesRead === 2 && head[0] === 0x1f && head[1] === 0x8b, size);
    } catch (error) {
      await file.close();
      throw error;
    }
  }

  async close(): Promise<void> {
    await this.file.close();
  }

  /** Where the next byte comes from: its offset in a plain file, its gzip member's in a .warc.gz. */
  offset(): number {
    const head = this.pieces[0];
    if (head) return this.gzip ? head.origin : head.origin + head.used;
    if (!this.gzip) return this.position;
    return this.inflator && !this.inflator.ended ? this.memberStart : this.position;
  }

  /** The gzip member reading stopped at, because it does not inflate. */
  get damaged(): DamagedMember | undefined {
    return this.damage;
  }

  /** The file ended inside a gzip member: a truncated .warc.gz. */
  get cutShort(): boolean {
    return this.atEnd && this.inflator !== undefined && !this.inflator.ended;
  }

  /** The damaged member is the one the last bytes handed out came from: what they began is lost. */
  get lastBytesDamaged(): boolean {
    return this.damage !== undefined && this.damage.offset === this.lastOrigin;
  }

  /** A line up to and with its LF, at most `max` bytes; null at the end of the file or of the readable bytes. */
  async readlineRaw(max: number): Promise<Uint8Array | null> {
    const parts: Uint8Array[] = [];
    let length = 0;
    while (length < max) {
      const head = await this.head();
      if (!head) break;
      const from = head.used;
      const lf = head.bytes.indexOf(10, from);
      const end = Math.min(lf >= 0 ? lf + 1 : head.bytes.byteLength, from + max - length);
      parts.push(this.take(head, end - from));
      length += end - from;
      if (lf >= 0 && end === lf + 1) break;
    }
    return parts.length ? Buffer.concat(parts, length) : null;
  }

  /** `size` bytes, fewer where the readable bytes end. */
  async readSize(size: number): Promise<Buffer> {
    const parts: Uint8Array[] = [];
    let length = 0;
    while (length < size) {
      const head = await this.head();
      if (!head) break;
      const part = this.take(head, Math.min(size - length, head.bytes.byteLength - head.used));
      parts.push(part);
      length += part.byteLength;
    }
    return Buffer.concat(parts, length);
  }

  /** Passes over `size` bytes without keeping them; returns how many there were. */
  async skipSize(size: number): Promise<number> {
    let skipped = 0;
    while (skipped < size) {
      const head = await this.head();
      if (!head) break;
      skipped += this.take(head, Math.min(size - skipped, head.bytes.byteLength - head.used)).byteLength;
    }
    return skipped;
  }

  /**
   * After a damaged member: moves to the next member that inflates whole into
   * a WARC record (see nextWarcMember), and returns its offset or why there is none.
   */
  async skipDamaged(): Promise<number | 'none' | 'false starts'> {
    const from = this.damage ? this.damage.offset + 1 : this.position;
    this.damage = undefined;
    this.pieces.length = 0;
    this.inflator = undefined;
    const next = await nextWarcMember((at, length) => this.rawBytes(at, length), this.size, from);
    this.position = typeof next === 'number' ? next : this.size;
    this.atEnd = typeof next !== 'number';
    return next;
  }

  private take(head: Piece, count: number): Uint8Array {
    const part = head.bytes.subarray(head.used, head.used + count);
    head.used += count;
    this.lastOrigin = head.origin;
    if (head.used >= head.bytes.byteLength) this.pieces.shift();
    return part;
  }

  private async head(): Promise<Piece | undefined> {
    while (!this.pieces[0]) {
      if (!(await this.fill())) return undefined;
    }
    return this.pieces[0];
  }

  /** Raw bytes from `at`, from the file or what was read of it. */
  private async rawBytes(at: number, length: number): Promise<Buffer> {
    if (at < this.rawStart || at + length > this.rawStart + this.raw.byteLength) {
      const buffer = Buffer.allocUnsafe(Math.max(READ_BYTES, length));
      const { bytesRead } = await this.file.read(buffer, 0, buffer.byteLength, at);
      this.raw = buffer.subarray(0, bytesRead);
      this.rawStart = at;
    }
    return this.raw.subarray(at - this.rawStart, at - this.rawStart + length);
  }

  /**
   * The member at `position` inflated at once, if it is whole within the bytes read (or within a fresh
   * read from it) and intact: a damaged or large member is streamed instead.
   */
  private async wholeMember(): Promise<{ bytes: Buffer; length: number } | undefined> {
    const cached = this.rawStart + this.raw.byteLength - this.position;
    const whole =
      this.position >= this.rawStart && cached > 0 ? inflateWholeMember(this.raw.subarray(this.position - this.rawStart)) : undefined;
    if (whole || cached >= Math.min(READ_BYTES, this.size - this.position)) return whole;
    return inflateWholeMember(await this.rawBytes(this.position, Math.min(READ_BYTES, this.size - this.position)));
  }

  /** Reads on (a push may make no output yet); false at the end of the file, at a damaged member, or a member cut short. */
  private async fill(): Promise<boolean> {
    if (this.damage || this.atEnd) return false;
    if (this.position >= this.size) {
      this.atEnd = true;
      return false;
    }
    if (!this.gzip) {
      const bytes = await this.rawBytes(this.position, Math.min(READ_BYTES, this.size - this.position));
      this.pieces.push({ bytes, used: 0, origin: this.position });
      this.position += bytes.byteLength;
      return true;
    }
    if (!this.inflator || this.inflator.ended) {
      const whole = await this.wholeMember();
      if (whole) {
        if (whole.bytes.byteLength) this.pieces.push({ bytes: whole.bytes, used: 0, origin: this.position });
        this.position += whole.length;
        this.inflator = undefined;
        return true;
      }
      this.inflator = new MemberInflator();
      this.memberStart = this.position;
    }
    const inflator = this.inflator;
    const input = await this.rawBytes(this.position, Math.min(PUSH_BYTES, this.size - this.position));
    inflator.push(input);
    if (inflator.ended && inflator.err !== 0) {
      this.damage = { offset: this.memberStart, reason: inflator.message };
      return false;
    }
    this.position += input.byteLength - (inflator.ended ? inflator.leftOver : 0);
    for (const bytes of inflator.chunks.splice(0)) if (bytes.byteLength) this.pieces.push({ bytes, used: 0, origin: this.memberStart });
    return true;
  }
}
