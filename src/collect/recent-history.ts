/**
 * The first commits of a walk from a HEAD, kept with its commit times (see cachedCommitTimes in
 * git-facts.ts): which paths each touched, and each such path's next change after them. A checkout
 * whose missing commits all lie among them gets every path's time without walking history.
 *
 * The fact store keeps them packed (packRecent): a warm run at a remembered HEAD never needs them,
 * so it loads bytes, and only a run at another HEAD decodes them.
 */
export interface RecentHistory {
  /** Commit ids, in walk order. */
  commits: string[];
  /** Their commit times, epoch ms. */
  times: number[];
  /** Each path these commits touched: the positions (ascending) in `commits` of those that did. */
  touched: Map<string, number[]>;
  /** For a path in `touched`: the time of its next change after these commits, when the walk reached it. */
  before: Map<string, number>;
}

/**
 * Commits at the start of a walk kept in its entry (RecentHistory): a checkout that far back
 * from a remembered HEAD, or on a branch that left it that recently, needs no walk at all.
 */
export const RECENT_COMMITS = 512;
/** ...and at most about this many path changes among them (a commit touching thousands of files ends the window). */
export const RECENT_CHANGES = 20_000;

/** Every path the kept commits at `positions` touched. */
export function touchedAt(recent: RecentHistory, positions: ReadonlySet<number>): Set<string> {
  const paths = new Set<string>();
  for (const [path, at] of recent.touched) if (at.some((position) => positions.has(position))) paths.add(path);
  return paths;
}

/**
 * A path's last commit time in the walk from the remembered HEAD once the commits at `dropped`
 * (those B does not reach) are left out: the first other kept commit that touched it, else its
 * next change after the kept ones. undefined when the walk that kept them never got that far.
 */
export function timeUpTo(recent: RecentHistory, dropped: ReadonlySet<number>, path: string): number | undefined {
  for (const position of recent.touched.get(path) ?? []) if (!dropped.has(position)) return recent.times[position];
  return recent.before.get(path);
}

/**
 * The recent commits of a derived entry: B..HEAD as its walk kept them (none when HEAD is B),
 * then the remembered entry's kept commits that B reaches. A path's next change after them all
 * is the remembered one where the remembered part touched it, else its time as of B. Cut back to
 * RECENT_COMMITS / RECENT_CHANGES as a walk would have kept them.
 */
export function joinRecent(
  ours: RecentHistory | undefined,
  theirs: { recent: RecentHistory; drop: ReadonlySet<number> } | undefined,
  asOfBase: (path: string) => number | undefined,
): RecentHistory | undefined {
  const joined: RecentHistory = { commits: [...(ours?.commits ?? [])], times: [...(ours?.times ?? [])], touched: new Map(), before: new Map() };
  for (const [path, positions] of ours?.touched ?? []) joined.touched.set(path, [...positions]);
  const fromTheirs = new Set<string>();
  if (theirs) {
    // each kept commit's position in the joined list, -1 for a dropped one
    const moved = new Int32Array(theirs.recent.commits.length).fill(-1);
    theirs.recent.commits.forEach((id, position) => {
      if (theirs.drop.has(position)) return;
      moved[position] = joined.commits.length;
      joined.commits.push(id);
      joined.times.push(theirs.recent.times[position] as number);
    });
    for (const [path, positions] of theirs.recent.touched) {
      const kept: number[] = [];
      for (const position of positions) if ((moved[position] as number) >= 0) kept.push(moved[position] as number);
      if (kept.length === 0) continue;
      const list = joined.touched.get(path);
      if (list) list.push(...kept);
      else joined.touched.set(path, kept);
      fromTheirs.add(path);
    }
  }
  for (const path of joined.touched.keys()) {
    const next = fromTheirs.has(path) ? theirs?.recent.before.get(path) : asOfBase(path);
    if (next !== undefined) joined.before.set(path, next);
  }
  return cutRecent(joined);
}

/** Keep the first commits within RECENT_COMMITS and RECENT_CHANGES; a path's first dropped commit becomes its next change. */
export function cutRecent(recent: RecentHistory): RecentHistory | undefined {
  let keep = 0;
  let changes = 0;
  const perCommit = new Array<number>(recent.commits.length).fill(0);
  for (const positions of recent.touched.values()) for (const position of positions) perCommit[position] = (perCommit[position] ?? 0) + 1;
  while (keep < recent.commits.length && keep < RECENT_COMMITS && changes < RECENT_CHANGES) changes += perCommit[keep++] ?? 0;
  if (keep === 0) return undefined;
  if (keep === recent.commits.length) return recent;
  const cut: RecentHistory = { commits: recent.commits.slice(0, keep), times: recent.times.slice(0, keep), touched: new Map(), before: new Map() };
  for (const [path, positions] of recent.touched) {
    const kept = positions.filter((position) => position < keep);
    if (kept.length === 0) continue;
    cut.touched.set(path, kept);
    const firstDropped = positions.find((position) => position >= keep);
    const next = firstDropped === undefined ? recent.before.get(path) : recent.times[firstDropped];
    if (next !== undefined) cut.before.set(path, next);
  }
  return cut;
}

const PACK_FORMAT = 1;
const HEADER_BYTES = 2 + 4 * 4;

/**
 * Bytes of `recent`: format, id length, counts (commits, paths, name bytes, positions), then the
 * commit ids, their times, the paths NUL-joined, each path's count of positions, the positions,
 * and each path's next change (NaN: unknown). undefined when the ids are not all hex of one length.
 */
export function packRecent(recent: RecentHistory): Uint8Array | undefined {
  const idBytes = (recent.commits[0]?.length ?? 40) / 2;
  if (!recent.commits.every((id) => id.length === idBytes * 2 && /^[0-9a-f]+$/.test(id))) return undefined;
  const paths = [...recent.touched.keys()];
  const names = Buffer.from(paths.join('\0'), 'utf8');
  let positions = 0;
  for (const list of recent.touched.values()) positions += list.length;
  const out = Buffer.alloc(HEADER_BYTES + recent.commits.length * (idBytes + 8) + names.length + paths.length * 12 + positions * 4);
  let at = out.writeUInt8(PACK_FORMAT, 0);
  at = out.writeUInt8(idBytes, at);
  for (const count of [recent.commits.length, paths.length, names.length, positions]) at = out.writeUInt32LE(count, at);
  for (const id of recent.commits) at += out.write(id, at, 'hex');
  for (const time of recent.times) at = out.writeDoubleLE(time, at);
  at += names.copy(out, at);
  for (const path of paths) at = out.writeUInt32LE(recent.touched.get(path)?.length ?? 0, at);
  for (const path of paths) for (const position of recent.touched.get(path) ?? []) at = out.writeUInt32LE(position, at);
  for (const path of paths) at = out.writeDoubleLE(recent.before.get(path) ?? Number.NaN, at);
  return out;
}

/** The RecentHistory of packed bytes, or undefined when they do not hold one (damage is a miss). */
export function unpackRecent(bytes: Uint8Array): RecentHistory | undefined {
  const data = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (data.length < HEADER_BYTES || data.readUInt8(0) !== PACK_FORMAT) return undefined;
  const idBytes = data.readUInt8(1);
  if (idBytes !== 20 && idBytes !== 32) return undefined;
  const [commits, pathCount, nameBytes, positions] = [2, 6, 10, 14].map((offset) => data.readUInt32LE(offset)) as [number, number, number, number];
  if (data.length !== HEADER_BYTES + commits * (idBytes + 8) + nameBytes + pathCount * 12 + positions * 4) return undefined;
  let at = HEADER_BYTES;
  const recent: RecentHistory = { commits: [], times: [], touched: new Map(), before: new Map() };
  for (let i = 0; i < commits; i++, at += idBytes) recent.commits.push(data.toString('hex', at, at + idBytes));
  for (let i = 0; i < commits; i++, at += 8) recent.times.push(data.readDoubleLE(at));
  const paths = pathCount === 0 ? [] : data.toString('utf8', at, at + nameBytes).split('\0');
  at += nameBytes;
  if (paths.length !== pathCount) return undefined;
  const counts = paths.map((_, i) => data.readUInt32LE(at + i * 4));
  at += pathCount * 4;
  // the lengths above hold: the per-path counts must add up to the positions stored
  if (counts.reduce((sum, count) => sum + count, 0) !== positions) return undefined;
  for (const [i, path] of paths.entries()) {
    const list: number[] = [];
    for (let n = 0; n < (counts[i] as number); n++, at += 4) {
      const position = data.readUInt32LE(at);
      if (position >= commits || (list.length > 0 && position <= (list[list.length - 1] as number))) return undefined;
      list.push(position);
    }
    if (list.length === 0) return undefined;
    recent.touched.set(path, list);
  }
  for (const path of paths) {
    const next = data.readDoubleLE(at);
    at += 8;
    if (!Number.isNaN(next)) recent.before.set(path, next);
  }
  return recent;
}
