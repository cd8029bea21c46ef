// Builders the workflow catalog (workflow-templates.ts) writes its definitions with: nodes as a
// request gives them (`type: {id}`), and the edges along a path or out of a condition.
import type { Delay, EdgeInput, NodeInput } from './definition.ts';

/** A node of the given type id, with its config when given. */
export const node = (id: string, typeId: string, config?: object): NodeInput => ({
  id,
  type: { id: typeId },
  ...(config ? { config } : {}),
});
/** The trigger nodes: started by hand, by a keyword, by a new contact. */
export const manual = () => node('start', 'trigger.manual');
export const keyword = (word: string) => node('start', 'trigger.keyword', { keyword: word });
export const contactCreated = () => node('start', 'trigger.contact-created');
/** Action and condition nodes, by what they do. */
export const send = (id: string, message: string) => node(id, 'action.send-message', { message });
export const wait = (id: string, delay: Delay) => node(id, 'action.wait', { delay });
export const replied = (id: string, delay: Delay) => node(id, 'condition.replied', { delay });
export const check = (id: string, attribute: string, value: string) =>
  node(id, 'condition.attribute', { attribute, comparator: '=', value });
export const setAttribute = (id: string, attribute: string, value: string) =>
  node(id, 'action.update-attribute', { attribute, value });
export const end = () => node('end', 'action.end');

/** Edges along a path of node ids: a → b → c. */
export const path = (...ids: string[]): EdgeInput[] =>
  ids.slice(1).map((target, i) => ({ id: `${ids[i]}-${target}`, source: ids[i], target }));
/** The `true` / `false` edges of a condition. */
export const branch = (source: string, ifTrue: string, ifFalse: string): EdgeInput[] => [
  { id: `${source}-true`, source, target: ifTrue, value: 'true' },
  { id: `${source}-false`, source, target: ifFalse, value: 'false' },
];

/** The opt-out sentence marketing texts end with. */
export const STOP = 'Reply STOP to opt out.';
