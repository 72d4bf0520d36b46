/** One page of a list as rows to skip and rows to take (LIMIT and OFFSET). */
export interface RowWindow {
  limit: number;
  offset: number;
}

/** Page `pageNumber` (from 1) of `pageSize` rows. */
export const rowWindow = (pageNumber: number, pageSize: number): RowWindow => ({
  limit: pageSize,
  offset: (pageNumber - 1) * pageSize,
});
