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
    const paged = new PagedBody(open('late', bad), LEAD, body.length, PAGE, crcs, refill, 0.1);
    paged.need(0, 1);
    paged.need(PAGE * 2, PAGE * 2 + 1);
    expect(calls).toBe(0);
    // two of eleven pages read: past a tenth, the next need reads the rest and finds page 9
    paged.need(PAGE * 4, PAGE * 4 + 1);
    expect(calls).toBe(1);
    expect(paged.bytes).toEqual(body);
    const short = new PagedBody(open('short', body.subarray(0, body.length - 5)), LEAD, body.length, PAGE, crcs, refill);
    short.need(PAGE * 10, PAGE * 10 + 1);
    expect(calls).toBe(2);
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

  it('refuses page checks that do not match the body', () => {
    expect(() => new PagedBody(open('count', body), LEAD, body.length, PAGE, crcs.subarray(1), () => undefined)).toThrow(/page checks/);
  });
});
