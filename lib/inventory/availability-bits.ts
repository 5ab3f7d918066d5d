/**
 * The availability bitset (./availability.ts) read and written bit by bit, and what it says per
 * price level. Pure and free of Node, so the browser counts with the same code as the server:
 * the show page's price table counts each level's free seats from the very bitset the seat map
 * draws (issue 42: the table lagged the map by minutes when it counted Postgres rows).
 *
 * Bit order is Redis's (SETBIT/GETBIT): bit 0 is the most significant bit of byte 0.
 */

/** Sets bit `i` (Redis bit order) in `bytes`. */
export function setBit(bytes: Uint8Array, i: number): void {
  bytes[i >> 3]! |= 0x80 >> (i & 7);
}

/** Reads bit `i` (Redis bit order) of `bytes`; bits past the end are 0. */
export function getBit(bytes: Uint8Array, i: number): boolean {
  return ((bytes[i >> 3] ?? 0) & (0x80 >> (i & 7))) !== 0;
}

/** The bytes of a base64 bitset (as `Availability.bits` carries it), in the browser or on the server. */
export function decodeBits(base64: string): Uint8Array {
  const bin = atob(base64);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

/** Seats on sale and seats free, per price level. */
export interface LevelCounts {
  total: number[];
  free: number[];
}

/**
 * Counts, per price level, the seats on sale and the free ones.
 * @param levelOfSeat per seat ordinal, the index of its price level, or -1 when it is not on sale
 *   in this show (lib/venues/seat-map.ts `SeatMapData.seats.level`).
 * @param levels how many price levels there are (indexes 0 … levels − 1).
 */
export function countByLevel(bits: Uint8Array, levelOfSeat: ArrayLike<number>, levels: number): LevelCounts {
  const total = new Array<number>(levels).fill(0);
  const free = new Array<number>(levels).fill(0);
  for (let i = 0; i < levelOfSeat.length; i++) {
    const level = levelOfSeat[i]!;
    if (level < 0 || level >= levels) continue;
    total[level]!++;
    if (getBit(bits, i)) free[level]!++;
  }
  return { total, free };
}
