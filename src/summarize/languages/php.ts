import { childText, setOf, type LanguageSpec } from './types.js';

export const phpLanguage: LanguageSpec = {
  id: 'php',
  fileType: 'PHP',
  grammar: 'php',
  extensions: ['.php', '.phtml'],
  definitions: {
    function_definition: 'function',
    method_declaration: 'method',
    class_declaration: 'class',
    interface_declaration: 'interface',
    trait_declaration: 'trait',
    enum_declaration: 'enum',
    namespace_definition: 'namespace',
    property_declaration: 'property',
  },
  containers: setOf('class_declaration', 'interface_declaration', 'trait_declaration', 'enum_declaration', 'namespace_definition'),
  wrappers: setOf(),
  comments: setOf('comment'),
  imports: setOf('namespace_use_declaration', 'php_tag', 'declare_statement'),
  bodyStyle: 'brace',
  commentPrefix: '//',
  // a block without the file's `<?php` tag would parse as HTML text
  blocks: 'whole',
  nameOf(node) {
    if (node.type === 'property_declaration') return node.namedChildren.find((c) => c?.type === 'property_element')?.text.split(/\s|=/)[0];
    return node.childForFieldName('name')?.text;
  },
  isExported(node) {
    const visibility = childText(node, ['visibility_modifier']);
    return visibility === undefined || visibility === 'public';
  },
};
