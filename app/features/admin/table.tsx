import type { ReactNode } from "react";
import { Pager } from "../posts/pager.js";
import type { TablePaging } from "./paging.js";

/** A dashboard table: a Count column first and an Action column last (SPEC.md 2), and its pages. */
export function AdminTable<Row>(props: {
  title: string;
  columns: string[];
  rows: Row[];
  empty: string;
  rowKey: (row: Row) => string;
  cells: (row: Row) => ReactNode[];
  actions: (row: Row) => ReactNode;
  paging?: TablePaging;
  /** Between the title and the rows: a search form. */
  above?: ReactNode;
  /** A class of the table's frame, for a table's own layout. */
  className?: string;
}) {
  const first = props.paging?.first ?? 1;
  return (
    <>
      <h1 className="page-title">{props.title}</h1>
      {props.above}
      {props.rows.length === 0 ? (
        <p className="empty">{props.empty}</p>
      ) : (
        <div className={props.className ? `table-scroll ${props.className}` : "table-scroll"}>
          <table className="admin-table">
            <thead>
              <tr>
                <th scope="col">Count</th>
                {props.columns.map((column) => (
                  <th key={column} scope="col">
                    {column}
                  </th>
                ))}
                <th scope="col">Action</th>
              </tr>
            </thead>
            <tbody>
              {props.rows.map((row, index) => (
                <tr key={props.rowKey(row)}>
                  <td data-label="Count">{first + index}</td>
                  {props.cells(row).map((cell, cellIndex) => (
                    <td key={cellIndex} data-label={props.columns[cellIndex]}>
                      {cell}
                    </td>
                  ))}
                  <td data-label="Action">
                    <div className="row-actions">{props.actions(row)}</div>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {props.paging ? (
        <Pager
          page={props.paging.page}
          pages={props.paging.pages}
          path={props.paging.path}
          label={`${props.title} pages`}
        />
      ) : null}
    </>
  );
}
