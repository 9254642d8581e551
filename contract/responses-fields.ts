// The field types the response shapes (responses.ts and its responses-*.ts siblings) are written with.
import { z } from 'zod';

export const str = z.string();
export const num = z.number();
export const int = z.number().int();
export const nullableStr = z.string().nullable();
