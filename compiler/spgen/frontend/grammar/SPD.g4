// SPD (Stream Processing Description) v1, as specified in SPD.md.
// Regenerate the committed Python parser with `make grammar`.
grammar SPD;

file_       : include* module* EOF ;

include     : INCLUDE STRING ';' ;

module      : NAME ID ';' statement* ;

statement
    : streamDecl
    | paramDecl
    | regDecl
    | equ
    | hdl
    | drct
    ;

streamDecl  : kind=(MAIN_IN | MAIN_OUT | BRCH_IN | BRCH_OUT) '{' ID '::' portDecl (',' portDecl)* '}' ';' ;

portDecl    : ID (':' typeName=ID)? ;

paramDecl   : PARAM ID '=' expr ';' ;

regDecl     : REG ID (':' typeName=ID)? '=' expr ';' ;

equ         : EQU label=ID ',' target=ID '=' expr ';' ;

// latency: `auto` (an ID) or an integer.
hdl         : HDL label=ID ',' latency=(ID | INT) ',' '(' portDecl (',' portDecl)* ')'
              '=' callee=ID '(' (expr (',' expr)*)? ')' ('[' hdlParam (',' hdlParam)* ']')? ';' ;

hdlParam    : ID '=' (expr | STRING) ;

drct        : DRCT '(' ID (',' ID)* ')' '=' '(' ID (',' ID)* ')' ';' ;

// Expressions are flat: `operand (op operand)*`, with an optional `? :` (lowest
// precedence, right-associative). Binary precedence and left associativity (SPD.md
// "Expressions") are applied by the tree builder (frontend/_parse.py, table
// PRECEDENCE): an LL(1) rule lets ANTLR parse without adaptive prediction, several
// times faster in the Python runtime than a left-recursive precedence rule, and
// long operator chains never recurse.
expr
    : operand (( '*' | '/' | '%' | '+' | '-' | '<<' | '>>' | '<' | '<=' | '>' | '>='
               | '==' | '!=' | '&' | '^' | '|' | '&&' | '||' ) operand)*
      ('?' expr ':' expr)?
    ;

// Prefix operators, then a literal, a name, a call or a parenthesised expression
// (one rule rather than two: each rule invocation is costly in the Python runtime).
operand
    : ('-' | '!' | '~')*
      ( INT
      | REAL
      | ID ('(' (expr (',' expr)*)? ')')?
      | '(' expr ')'
      )
    ;

NAME        : 'Name' ;
MAIN_IN     : 'Main_In' ;
MAIN_OUT    : 'Main_Out' ;
BRCH_IN     : 'Brch_In' ;
BRCH_OUT    : 'Brch_Out' ;
PARAM       : 'Param' ;
REG         : 'Reg' ;
EQU         : 'EQU' ;
HDL         : 'HDL' ;
DRCT        : 'DRCT' ;
INCLUDE     : 'Include' ;

REAL        : DIGIT+ '.' DIGIT* EXPONENT?
            | '.' DIGIT+ EXPONENT?
            | DIGIT+ EXPONENT
            ;
INT         : DIGIT+ | '0' [xX] HEXDIGIT+ ;
ID          : [A-Za-z_] [A-Za-z0-9_]* ;
STRING      : '"' ~["\r\n]* '"' ;

COMMENT     : ('#' | '//') ~[\r\n]* -> skip ;
WS          : [ \t\r\n\f]+ -> skip ;
// Any other character becomes a token the front end reports as a diagnostic.
BAD_CHAR    : . ;

fragment DIGIT    : [0-9] ;
fragment HEXDIGIT : [0-9a-fA-F] ;
fragment EXPONENT : [eE] [+-]? DIGIT+ ;
