import { modifierWords, setOf, type LanguageSpec } from './types.js';

export const javaLanguage: LanguageSpec = {
  id: 'java',
  fileType: 'Java',
  grammar: 'java',
  extensions: ['.java'],
  definitions: {
    class_declaration: 'class',
    interface_declaration: 'interface',
    enum_declaration: 'enum',
    record_declaration: 'record',
    annotation_type_declaration: 'interface',
    method_declaration: 'method',
    constructor_declaration: 'constructor',
    field_declaration: 'field',
  },
  containers: setOf('class_declaration', 'interface_declaration', 'enum_declaration', 'record_declaration', 'annotation_type_declaration'),
  wrappers: setOf(),
  comments: setOf('line_comment', 'block_comment'),
  imports: setOf('import_declaration', 'package_declaration'),
  bodyStyle: 'brace',
  commentPrefix: '//',
  nameOf(node) {
    if (node.type === 'field_declaration') return node.childForFieldName('declarator')?.childForFieldName('name')?.text;
    return node.childForFieldName('name')?.text;
  },
  isExported(node, _name, context) {
    if (context.container?.type === 'interface_declaration') return true;
    const words = modifierWords(node, ['modifiers']);
    return words.includes('public') || words.includes('protected');
  },
};
