/**
 * Templates that froze the old merge-field pattern (it backtracked cubically), with what they render
 * for a contact whose firstName is "Ada" and who has no attributes. Shared by the render tests, the
 * console's and the HTTP fuzz corpus.
 */
export const HOSTILE_TEMPLATES: { name: string; template: string; rendered: string }[] = [
  { name: '10,000 opening braces', template: '{'.repeat(10_000), rendered: '{'.repeat(10_000) },
  { name: '10,000 closing braces', template: '}'.repeat(10_000), rendered: '}'.repeat(10_000) },
  {
    name: '{{{ and 9,997 spaces, never closed',
    template: `{{{${' '.repeat(9_997)}`,
    rendered: `{{{${' '.repeat(9_997)}`,
  },
  {
    name: '{{{ and 10,000 spaces, never closed',
    template: `{{{${' '.repeat(10_000)}`,
    rendered: `{{{${' '.repeat(10_000)}`,
  },
  {
    name: 'a field padded with 9,000 spaces',
    template: `{{{${' '.repeat(4_500)}firstName${' '.repeat(4_500)}}}}`,
    rendered: 'Ada',
  },
  {
    name: 'a field of spaces only',
    template: `{{{${' '.repeat(9_990)}}}}`,
    rendered: '',
  },
  {
    name: 'an almost closed field of 9,994 characters',
    template: `{{{${'x'.repeat(9_994)}}}`,
    rendered: `{{{${'x'.repeat(9_994)}}}`,
  },
  {
    name: '800 unclosed fields',
    template: '{{{firstName'.repeat(800),
    rendered: '{{{firstName'.repeat(800),
  },
  {
    name: 'spaces then a stray brace, 1,600 times',
    template: '{{{     }'.repeat(1_100),
    rendered: '{{{     }'.repeat(1_100),
  },
  { name: 'nested braces', template: '{{{{{{firstName}}}}}}', rendered: '{{{Ada}}}' },
  {
    name: 'a field inside an unclosed field',
    template: `{{{ first ${'{{{firstName}}} '.repeat(600)}`,
    rendered: `{{{ first ${'Ada '.repeat(600)}`,
  },
  { name: '1,428 fields', template: '{{{x}}}'.repeat(1_428), rendered: '' },
];
