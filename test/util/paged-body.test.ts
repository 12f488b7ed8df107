import { openSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PagedBody, pageCrcs } from '../../src/util/paged-body.js';
import { makeTempDir } from '../helpers/fixture-repo.js';

/**
 * A body read a page at a time: what is needed is read and checked, nothing else; past the
 * read-all share the rest comes in one read; a page that fails its check is found when it is
 * needed and the body comes from `damaged` (or every later need fails with its error).
 */
const PAGE = 64;
const LEAD = 16;

describe('PagedBody', () => {
  const tmp = makeTempDir('aiwg-paged-');
  afterAll(() => tmp.cleanup());
  const body = Uint8Array.from({ length: PAGE * 10 + 17 }, (_, i) => (i * 7 + 3) & 0xff);
  const crcs = pageCrcs(body, PAGE);
  /** A file of LEAD bytes of something else, then `bytes`, open for reading. */
  const open = (name: string, bytes: Uint8Array) => {
    const path = join(tmp.root, name);
    writeFileSync(path, Buffer.concat([Buffer.alloc(LEAD, 0xee), bytes]));
    return openSync(path, 'r');
  };
  /** The file as `open` writes it, as a read ahead would hold it: in a buffer of its own (the body 8-byte aligned, at LEAD). */
  const file = (bytes: Uint8Array) => {
    const whole = new Uint8Array(LEAD + bytes.length).fill(0xee, 0, LEAD);
    whole.set(bytes, LEAD);
    return whole;
  };
  /** Pages of `paged` whose bytes are still all zero, i.e. not read. */
  const unread = (paged: PagedBody) => crcs.map((_, page) => (paged.bytes.subarray(page * PAGE, (page + 1) * PAGE).every((b) => b === 0) ? 1 : 0)).reduce((a, b) => a + b, 0);

  it('reads the pages a range needs, checked, and nothing else', () => {
    const paged = new PagedBody(open('plain', body), LEAD, body.length, PAGE, crcs, () => {
      throw new Error('not damaged');
    });
    expect(paged.bytes.length).toBe(body.length);
    paged.need(PAGE * 2 + 5, PAGE * 3 + 1);
    expect(paged.bytes.subarray(PAGE * 2, PAGE * 4)).toEqual(body.subarray(PAGE * 2, PAGE * 4));
    expect(unread(paged)).toBe(crcs.length - 2);
    expect(paged.complete).toBe(false);
    // the short last page
    paged.need(body.length - 1, body.length);
    expect(paged.bytes.subarray(PAGE * 10)).toEqual(body.subarray(PAGE * 10));
    for (let page = 0; page < crcs.length; page++) paged.need(page * PAGE, page * PAGE + 1);
    expect(paged.bytes).toEqual(body);
    expect(paged.complete).toBe(true);
  });

  it('reads the rest in one go once the read-all share of pages has been read', () => {
    const paged = new PagedBody(open('share', body), LEAD, body.length, PAGE, crcs, () => {
      throw new Error('not damaged');
    }, 0.25);
    paged.need(0, 1);
    paged.need(PAGE * 5, PAGE * 5 + 1);
    expect(paged.complete).toBe(false);
    paged.need(PAGE * 7, PAGE * 7 + 1);
    expect(paged.complete).toBe(false);
    // three of eleven pages read: past a quarter, the next need reads everything
    paged.need(PAGE * 9, PAGE * 9 + 1);
    expect(paged.complete).toBe(true);
    expect(paged.bytes).toEqual(body);
  });

  it('finds a damaged page when it is needed, and takes the body from damaged', () => {
    const bad = Uint8Array.from(body);
    bad[PAGE * 6 + 3]! ^= 0xff;
    let calls = 0;
    const paged = new PagedBody(open('damaged', bad), LEAD, body.length, PAGE, crcs, (bytes) => {
      calls++;
      bytes.set(body);
    });
    paged.need(0, PAGE * 3);
    expect(calls).toBe(0);
    paged.need(PAGE * 6, PAGE * 6 + 1);
    expect(calls).toBe(1);
    expect(paged.complete).toBe(true);
    expect(paged.bytes).toEqual(body);
    paged.need(PAGE * 8, PAGE * 8 + 4);
    expect(calls).toBe(1);
  });

  it('a damaged page found by the read of the rest is damaged too; a short file is damaged', () => {
    const bad = Uint8Array.from(body);
    bad[PAGE * 9]! ^= 0xff;
    let calls = 0;
    const refill = (bytes: Uint8Array) => {
      calls++;
      bytes.set(body);
    };
    // read from the file, and with the same damaged file read ahead (its page fails there and in the file)
    for (const [k, ahead] of [undefined, file(bad)].entries()) {
      const paged = new PagedBody(open(`late-${k}`, bad), LEAD, body.length, PAGE, crcs, refill, 0.1, ahead && (() => ahead));
      paged.need(0, 1);
      paged.need(PAGE * 2, PAGE * 2 + 1);
      expect(calls).toBe(k);
      // two of eleven pages read: past a tenth, the next need reads the rest and finds page 9
      paged.need(PAGE * 4, PAGE * 4 + 1);
      expect(calls).toBe(k + 1);
      expect(paged.bytes).toEqual(body);
    }
    const short = new PagedBody(open('short', body.subarray(0, body.length - 5)), LEAD, body.length, PAGE, crcs, refill);
    short.need(PAGE * 10, PAGE * 10 + 1);
    expect(calls).toBe(3);
    expect(short.bytes).toEqual(body);
  });

  it('when damaged throws, every later need throws the same', () => {
    const bad = Uint8Array.from(body);
    bad[0]! ^= 0xff;
    const failure = new Error('no source to fill from');
    const paged = new PagedBody(open('fails', bad), LEAD, body.length, PAGE, crcs, () => {
      throw failure;
    });
    expect(() => paged.need(0, 1)).toThrow(failure);
    expect(() => paged.need(PAGE * 4, PAGE * 4 + 1)).toThrow(failure);
    expect(paged.complete).toBe(false);
  });

  describe('with the file read ahead', () => {
    const notDamaged = () => {
      throw new Error('not damaged');
    };

    it('there as the body is made (aligned): the body is that file, its pages checked, nothing read', () => {
      // the file on disk is garbage: a page read from it would fail its check
      const whole = file(body);
      const paged = new PagedBody(open('ahead-garbage', new Uint8Array(body.length)), LEAD, body.length, PAGE, crcs, notDamaged, undefined, () => whole);
      expect(paged.bytes.buffer).toBe(whole.buffer);
      paged.need(PAGE * 3, PAGE * 5);
      expect(paged.bytes.subarray(PAGE * 3, PAGE * 5)).toEqual(body.subarray(PAGE * 3, PAGE * 5));
      for (let page = 0; page < crcs.length; page++) paged.need(page * PAGE, page * PAGE + 1);
      expect(paged.bytes).toEqual(body);
      expect(paged.complete).toBe(true);
    });

    it('arriving later, or not aligned: pages are copied from it, checked', () => {
      let arrived: Uint8Array | undefined;
      const late = new PagedBody(open('ahead-late', body), LEAD, body.length, PAGE, crcs, notDamaged, undefined, () => arrived);
      late.need(0, 1);
      expect(unread(late)).toBe(crcs.length - 1);
      arrived = file(new Uint8Array(body.length)); // wrong bytes: the page is read from the file
      late.need(PAGE, PAGE + 1);
      arrived = file(body);
      late.need(PAGE * 2, PAGE * 9);
      expect(late.bytes.subarray(0, PAGE * 9)).toEqual(body.subarray(0, PAGE * 9));
      // one byte in front: the body's place is not 8-byte aligned, so it is copied (from garbage on disk)
      const shifted = new Uint8Array(file(body).length + 1);
      shifted.set(file(body), 1);
      const unaligned = shifted.subarray(1);
      const copied = new PagedBody(open('ahead-shifted', new Uint8Array(body.length)), LEAD, body.length, PAGE, crcs, notDamaged, 0.25, () => unaligned);
      expect(copied.bytes.buffer).not.toBe(shifted.buffer);
      for (const page of [0, 4, 8, 9]) copied.need(page * PAGE, page * PAGE + 1);
      expect(copied.complete).toBe(true);
      expect(copied.bytes).toEqual(body);
      // a stale page of the copy, read from the file when needed, is not taken back from it by the read of the rest
      const staleShifted = shifted.slice();
      staleShifted[1 + LEAD + PAGE * 4 + 1]! ^= 0xff;
      const stale = staleShifted.subarray(1);
      const mended = new PagedBody(open('ahead-shifted-stale', body), LEAD, body.length, PAGE, crcs, notDamaged, 0.25, () => stale);
      expect(mended.bytes.buffer).not.toBe(staleShifted.buffer);
      for (const page of [4, 6, 8, 9]) mended.need(page * PAGE, page * PAGE + 1);
      expect(mended.complete).toBe(true);
      expect(mended.bytes).toEqual(body);
    });

    it('a page of it that fails its check is read from the file', () => {
      const stale = file(body);
      stale[LEAD + PAGE * 4 + 1]! ^= 0xff;
      const paged = new PagedBody(open('ahead-stale', body), LEAD, body.length, PAGE, crcs, notDamaged, 0.5, () => stale);
      paged.need(PAGE * 4, PAGE * 4 + 1);
      expect(paged.bytes.subarray(PAGE * 4, PAGE * 5)).toEqual(body.subarray(PAGE * 4, PAGE * 5));
      // the rest at once, its stale page read from the file too
      for (const page of [0, 1, 2, 3, 5, 6]) paged.need(page * PAGE, page * PAGE + 1);
      expect(paged.complete).toBe(true);
      expect(paged.bytes).toEqual(body);
    });
  });

  it('refuses page checks that do not match the body', () => {
    expect(() => new PagedBody(open('count', body), LEAD, body.length, PAGE, crcs.subarray(1), () => undefined)).toThrow(/page checks/);
  });
});
