import { PageQuerySchema } from "../../contract/content.js";
import { validate } from "../../core/shared/validate.js";

/** `?pageNumber=n&category=c` with a 400 for a page that is not a whole number from 1. */
export const readPageQuery = (query: unknown) => validate(PageQuerySchema, query);
