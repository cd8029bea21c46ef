import { Type } from '@sinclair/typebox';
import { DECLARABLE_TYPES } from './file-types.ts';

/** A raw-body upload: the bytes of the file, its type in Content-Type. */
const RawFile = (type: string) =>
  Type.Unsafe<unknown>({
    contentMediaType: type,
    description: `The file's bytes; they must be ${type} (checked by their first bytes).`,
  });

/** The multipart form: one file in the field `media`. */
// No `required` here: the body is checked as it streams (400 FILE-005 without `media`).
const MultipartFile = Type.Unsafe<unknown>({
  type: 'object',
  properties: { media: { type: 'string', contentMediaType: 'application/octet-stream' } },
  description:
    'One file part named `media` (required), with its Content-Type (application/octet-stream: the type its bytes show). ' +
    'Other fields are ignored; a second file is 400 FILE-005.',
});

/** The request body of POST /v1/tools/sharefile: multipart, or the raw file in any accepted type. */
export const SharefileBody = {
  content: {
    'multipart/form-data': { schema: MultipartFile },
    ...Object.fromEntries(DECLARABLE_TYPES.map((t) => [t, { schema: RawFile(t) }])),
  },
};

export const SharedFile = Type.Object({
  link: Type.String({
    format: 'uri',
    description:
      'Public URL of the file on the public listener (`{EXTERNALS_URL}/files/{token}.{extension}`, 256 random bits); ' +
      'give it as a `media` URL of a send, or put it in a text.',
  }),
  expires: Type.String({
    format: 'date-time',
    description: 'When the link stops working (SHAREFILE_TTL_HOURS).',
  }),
  contentType: Type.String({ description: 'The type the file is served with.' }),
  size: Type.Integer({ description: 'Bytes.' }),
});
