import { closeSync, readSync } from 'node:fs';
import { crc32 } from 'node:zlib';

/**
 * The raw body that follows a file's leading frame (framed-file.ts readLeadingFrameSync), read a
 * page at a time on first use: the frame lists a crc32 per page (pageCrcs), and `need(start, end)`
 * makes bytes[start .. end) of the body readable in `bytes`, reading and checking each page of it
 * not read yet. `bytes` has the body's whole size from the start (memory never touched costs
 * nothing), so a run that needs a few rows of a large table reads a few pages, not the file.
 *
 * With `readAllShare`, once that share of the pages has been read one by one the rest are read in
 * one go: a run that needs much of the body (a cold run counting a whole repository) pays one
 * read, not a thousand, and `complete` tells a hot loop it can stop asking.
 *
 * With `ahead`, the whole file as read ahead off this thread, once it has arrived: when it is
 * there as the body is made (and the body's place in it is 8-byte aligned), `bytes` is that place
 * of it, so a page costs its check alone; when it arrives later, a page is copied from it. A page
 * from it that fails its check is read from the file (which may have been replaced since).
 * `bytes` may then start inside a larger buffer: views of it take `bytes.byteOffset` into account.
 *
 * A page that is short, unreadable or fails its check calls `damaged`, which must fill `bytes`
 * whole from the source the file was made from (or throw: every later need throws the same); the
 * file is closed then, and once every page is read.
 */
export class PagedBody {
  readonly bytes: Uint8Array;
  private readonly loaded: Uint8Array;
  private pending: number;
  private fd: number | null;
  private failure: unknown;
  /** Whether `bytes` is the file read ahead (its pages there, not checked yet). */
  private readonly adopted: boolean;

  constructor(
    fd: number,
    private readonly offset: number,
    length: number,
    private readonly pageBytes: number,
    private readonly crcs: Uint32Array,
    private readonly damaged: (bytes: Uint8Array) => void,
    /** Once this share of the pages has been read one by one, read the rest at once; none: never. */
    private readonly readAllShare?: number,
    /** The whole file as read ahead, once it has arrived (undefined before, or when it could not be read). */
    private ahead?: () => Uint8Array | undefined,
  ) {
    if (crcs.length !== pageCount(length, pageBytes)) throw new RangeError(`${crcs.length} page checks for ${pageCount(length, pageBytes)} pages`);
    this.fd = fd;
    const whole = ahead?.();
    this.adopted = whole !== undefined && whole.length === offset + length && (whole.byteOffset + offset) % 8 === 0;
    // else a whole number of 8-byte words, so any typed array can view any aligned section of it
    this.bytes = this.adopted ? new Uint8Array(whole!.buffer, whole!.byteOffset + offset, length) : new Uint8Array(new ArrayBuffer(Math.ceil(length / 8) * 8), 0, length);
    this.loaded = new Uint8Array(crcs.length);
    this.pending = crcs.length;
  }

  /** Whether every byte is readable (every page read, or the body filled after a damaged one). */
  get complete(): boolean {
    return this.fd === null && this.failure === undefined;
  }

  /** Make bytes[start .. end) readable (end > start). */
  need(start: number, end: number): void {
    if (this.fd === null) {
      if (this.failure !== undefined) throw this.failure;
      return;
    }
    const last = Math.floor((end - 1) / this.pageBytes);
    for (let page = Math.floor(start / this.pageBytes); page <= last; page++) {
      if (this.loaded[page] === 1) continue;
      if (this.readAllShare !== undefined && this.loaded.length - this.pending >= this.loaded.length * this.readAllShare) {
        this.readAll();
        return;
      }
      if (!this.read(page)) return;
    }
  }

  /** Read every page from the first not read yet to the end in one read, each checked again. */
  private readAll(): void {
    const first = this.loaded.indexOf(0);
    const span = this.bytes.subarray(first * this.pageBytes);
    // every page from `first` is checked again: a copy from the read ahead covers them all
    const checked = () => {
      for (let page = first; page < this.loaded.length; page++) if (crc32(this.page(page)) !== this.crcs[page]) return false;
      return true;
    };
    if (!(this.fromAhead(span, first * this.pageBytes) && checked())) {
      let read = 0;
      try {
        // a read may return less than asked; the file ends early only when one returns nothing
        for (let got = -1; read < span.length && got !== 0; read += got) got = readSync(this.fd!, span, read, span.length - read, this.offset + first * this.pageBytes + read);
      } catch {
        read = -1; // unreadable: damaged, below
      }
      if (read !== span.length || !checked()) {
        this.fail();
        return;
      }
    }
    this.loaded.fill(1);
    this.pending = 0;
    this.close();
  }

  /** Read and check one page; false when it failed (the body is filled by `damaged` then, or failed). */
  private read(page: number): boolean {
    const bytes = this.page(page);
    if (this.fromAhead(bytes, page * this.pageBytes) && crc32(bytes) === this.crcs[page]) return this.loadedPage(page);
    let read = -1;
    try {
      read = readSync(this.fd!, bytes, 0, bytes.length, this.offset + page * this.pageBytes);
    } catch {
      // unreadable: damaged, below
    }
    if (read === bytes.length && crc32(bytes) === this.crcs[page]) return this.loadedPage(page);
    this.fail();
    return false;
  }

  private page(page: number): Uint8Array {
    return this.bytes.subarray(page * this.pageBytes, Math.min((page + 1) * this.pageBytes, this.bytes.length));
  }

  /**
   * Whether `target` (bytes[start ..]) holds its bytes from the file read ahead, to be checked:
   * there already when the body is that file, else copied from it once it has arrived.
   */
  private fromAhead(target: Uint8Array, start: number): boolean {
    if (this.adopted) return true;
    const whole = this.ahead?.();
    const from = this.offset + start;
    if (whole === undefined || whole.length < from + target.length) return false;
    target.set(whole.subarray(from, from + target.length));
    return true;
  }

  private loadedPage(page: number): true {
    this.loaded[page] = 1;
    if (--this.pending === 0) this.close();
    return true;
  }

  /** A page failed: the whole body from `damaged`, or its error for every later need. */
  private fail(): void {
    this.close();
    try {
      this.damaged(this.bytes);
    } catch (error) {
      this.failure = error;
      throw error;
    }
  }

  private close(): void {
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
    this.ahead = undefined;
  }
}

/** The crc32 of each page of `body`, what a writer puts in the frame for PagedBody to check. */
export function pageCrcs(body: Uint8Array, pageBytes: number): Uint32Array {
  return Uint32Array.from({ length: pageCount(body.length, pageBytes) }, (_, page) => crc32(body.subarray(page * pageBytes, (page + 1) * pageBytes)));
}

function pageCount(length: number, pageBytes: number): number {
  return Math.ceil(length / pageBytes);
}
