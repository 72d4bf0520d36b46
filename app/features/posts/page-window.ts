export const GAP = 0;

/**
 * The page numbers a pager shows: the first, the last, and two on each side of the current one,
 * with a gap (0) where numbers are left out. A site with 1,667 pages still gets a short pager.
 */
export function pageWindow(page: number, pages: number): number[] {
  const shown = new Set([1, pages]);
  for (let n = page - 2; n <= page + 2; n += 1) if (n >= 1 && n <= pages) shown.add(n);
  const sorted = [...shown].sort((a, b) => a - b);
  return sorted.flatMap((n, i) => {
    const previous = sorted[i - 1];
    if (previous === undefined || n === previous + 1) return [n];
    return n === previous + 2 ? [previous + 1, n] : [GAP, n];
  });
}
