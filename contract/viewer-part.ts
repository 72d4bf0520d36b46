/**
 * What a route tells its viewer's islands (decision 021): the JSON text of the signed-in viewer's
 * part of the page (`viewerPart` in the loader), a shell's marker in its place when the page is
 * rendered once for every member, or undefined for a visitor.
 */
export type ViewerPart = string | undefined;

/**
 * The text of a viewer's part: tagged with its route, so no two parts (nor any other string of
 * the page's data, which React Router's encoding would share) are ever the same text.
 */
export const viewerPartText = (route: string, data: unknown) => JSON.stringify({ route, data });
