import type { ReactNode } from "react";

/** A dashboard table: a Count column first and an Action column last (SPEC.md 2). */
export function AdminTable<Row>(props: {
  title: string;
  columns: string[];
  rows: Row[];
  empty: string;
  rowKey: (row: Row) => string;
  cells: (row: Row) => ReactNode[];
  actions: (row: Row) => ReactNode;
}) {
  return (
    <>
      <h1 className="page-title">{props.title}</h1>
      {props.rows.length === 0 ? (
        <p className="empty">{props.empty}</p>
      ) : (
        <div className="table-scroll">
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
                  <td>{index + 1}</td>
                  {props.cells(row).map((cell, cellIndex) => (
                    <td key={cellIndex}>{cell}</td>
                  ))}
                  <td>
                    <div className="row-actions">{props.actions(row)}</div>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}
