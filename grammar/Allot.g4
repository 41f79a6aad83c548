// The Allot policy language. docs/LANGUAGE.md is the reference for users;
// this file is the single source of truth for the syntax.
//
// The parser only knows shape. Every rule about meaning (which names exist,
// which properties a node may carry, types and units) lives in compiler/frontend/src/check,
// so this grammar stays small and its error messages stay about syntax.
grammar Allot;

// `shares` and `share parent` are matched as names where a share is expected
// (treeShare), so `share`, `shares` and `parent` stay ordinary names elsewhere
// (`account.share`, a user called `parent`).
@parser::members {
  bool isWord(const char* word) { return _input->LT(1)->getText() == word; }
}

file : importDecl* topItem* EOF ;

importDecl : 'import' path=STRING ;

topItem : policyDecl | fnDecl | classDecl ;

policyDecl : 'policy' name=IDENT '{' policyItem* '}' ;

policyItem
  : unitDecl
  | windowDecl
  | fairshareDecl
  | treeDecl
  | classDecl
  | exceptionDecl
  | fnDecl
  | rankDecl
  | preemptDecl
  | gatesDecl
  ;

// --- unit -------------------------------------------------------------------
unitDecl : 'unit' kind=IDENT '{' weight* '}' ;
weight : name=IDENT '=' value=NUMBER ;

// --- window and fair share ----------------------------------------------------
windowDecl : 'window' length=DURATION ('half_life' halfLife=DURATION)? ;
fairshareDecl : 'fairshare' algorithm=IDENT ;

// --- tree -------------------------------------------------------------------
treeDecl : 'tree' '{' (treeNode | unallocated)* '}' ;
treeNode : level=('project' | 'user')? name=IDENT share=treeShare ('{' nodeItem* '}')? ;
// `40%` of the parent, raw `shares 50` (Slurm's Fairshare=50), or `share parent`
// (Slurm's FairShare=parent). The checker enforces one form per sibling set.
treeShare
  : percent=PERCENT                                                             # percentShare
  | {isWord("shares")}? word=IDENT raw=NUMBER                                   # rawShare
  | {isWord("share")}? word=IDENT {isWord("parent")}? parentWord=IDENT          # parentShare
  ;
nodeItem : treeNode | unallocated | nodeAttribute ;
unallocated : 'unallocated' share=PERCENT ;
nodeAttribute
  : 'owner' value=STRING          # ownerAttribute
  | 'review' date=DATE            # reviewAttribute
  | 'hypothesis' value=STRING     # hypothesisAttribute
  ;

// --- classes (execution contracts) ------------------------------------------
classDecl : 'class' name=IDENT '{' classProperty* '}' ;
classProperty
  : 'max_gpus' value=NUMBER                         # maxGpusProperty
  | 'max_nodes' value=NUMBER                        # maxNodesProperty
  | 'max_runtime' value=DURATION                    # maxRuntimeProperty
  | 'protect' (upTo='up' 'to')? value=DURATION      # protectProperty
  | 'checkpoint' 'every' value=DURATION             # checkpointProperty
  | 'grace' value=DURATION                          # graceProperty
  | 'resumable' flag=booleanLiteral?                # resumableProperty
  | 'preemptible' flag=booleanLiteral?              # preemptibleProperty
  | 'deadline' requirement=('required' | 'optional')       # deadlineProperty
  | 'slo' value=PERCENT                             # sloProperty
  // `fast_lane up to 4 gpus per program`; the checker reads the words after
  // the number, so a misspelt unit gets a message about fast lanes.
  | 'fast_lane' 'up' 'to' value=NUMBER words+=IDENT* # fastLaneProperty
  // `progress every 20m after 10m else stop`: `after` is read as a word (not a
  // keyword, so names such as `fn after` stay valid), and so is the action.
  | 'progress' 'every' value=DURATION (afterWord=IDENT after=DURATION)? ('else' action=(IDENT | 'preempt'))? # progressProperty
  ;
booleanLiteral : 'true' | 'false' ;

// --- exceptions -------------------------------------------------------------
exceptionDecl : 'exception' name=IDENT '{' exceptionProperty* '}' ;
exceptionProperty
  : 'grant' to=nodePath amount=signedPercent ('from' source=nodePath)?  # grantProperty
  | 'owner' value=STRING                                               # exceptionOwner
  | 'reason' value=STRING                                              # exceptionReason
  | 'starts' date=DATE                                                 # exceptionStarts
  | 'expires' date=DATE                                                # exceptionExpires
  ;
nodePath : IDENT ('/' IDENT)* ;
signedPercent : sign=('+' | '-')? PERCENT ;

// --- functions, rank and preempt ----------------------------------------------
fnDecl : 'fn' name=IDENT '(' (param (',' param)*)? ')' (':' result=typeName)? '=' body=expr ;
param : name=IDENT ':' type=typeName ;
typeName : IDENT | 'class' ;

rankDecl : 'rank' '=' body=expr ;
preemptDecl : 'preempt' 'when' body=expr ;

// --- gates ------------------------------------------------------------------
gatesDecl : 'gates' '{' gate* '}' ;
gate : metric=IDENT (subject=IDENT)? op=comparison threshold=literal ('over' window=DURATION)? ;

// --- expressions --------------------------------------------------------------
// Alternatives are listed from the tightest binding to the loosest.
expr
  : primary                                              # primaryExpr
  | target=expr '.' field=fieldName                      # fieldExpr
  | <assoc = right> left=expr '^' right=expr             # powerExpr
  | '-' operand=expr                                     # negateExpr
  | left=expr op=('*' | '/') right=expr                  # multiplyExpr
  | left=expr op=('+' | '-') right=expr                  # addExpr
  | left=expr op=comparison right=expr                   # compareExpr
  | 'not' operand=expr                                   # notExpr
  | left=expr 'and' right=expr                           # andExpr
  | left=expr 'or' right=expr                            # orExpr
  | 'if' condition=expr 'then' thenBranch=expr 'else' elseBranch=expr  # ifExpr
  | 'let' name=IDENT '=' value=expr 'in' body=expr       # letExpr
  ;

// Field names may be words the policy syntax reserves (`job.class`,
// `job.resumable`, `job.protect`).
fieldName : IDENT | 'class' | 'deadline' | 'owner' | 'review' | 'slo' | 'user' | 'project' | 'window' | 'unit'
          | 'resumable' | 'protect' ;

comparison : '<' | '<=' | '>' | '>=' | '==' | '!=' ;

primary
  : literal                                              # literalPrimary
  | name=IDENT                                           # namePrimary
  | callee=IDENT '(' (expr (',' expr)*)? ')'             # callPrimary
  | '(' inner=expr ')'                                   # parenPrimary
  | 'match' subject=expr '{' matchArm (',' matchArm)* ','? '}'  # matchPrimary
  ;

matchArm : (pattern=IDENT | wildcard='_') '=>' value=expr ;

literal : NUMBER | DURATION | PERCENT | DATE | STRING | 'true' | 'false' ;

// --- tokens -----------------------------------------------------------------
DATE : DIGIT DIGIT DIGIT DIGIT '-' DIGIT DIGIT '-' DIGIT DIGIT ;
// `15m`, `1.5h`, `1h30m`: support/duration.h reads it (the grammar every input shares),
// so a malformed one (`30m1h`, `1.5h30m`) is a duration with a message, not two tokens.
DURATION : NUMERAL DURATION_UNIT (DIGIT+ DURATION_UNIT)* ;
PERCENT : NUMERAL '%' ;
NUMBER : NUMERAL ;
STRING : '"' (~["\\\r\n] | '\\' ["\\nt])* '"' ;
IDENT : [a-zA-Z_] [a-zA-Z_0-9]* ;

LINE_COMMENT : '//' ~[\r\n]* -> channel(HIDDEN) ;
BLOCK_COMMENT : '/*' .*? '*/' -> channel(HIDDEN) ;
// Matched only when no `*/` follows, so the parser can say what is wrong. The
// body cannot contain `*/`: with `.*? EOF` this rule matched longer than
// BLOCK_COMMENT and won, so every block comment was reported unterminated.
UNTERMINATED_COMMENT : '/*' ( ~'*' | '*'+ ~[*/] )* '*'* EOF ;
WS : [ \t\r\n]+ -> skip ;

fragment NUMERAL : DIGIT+ ('.' DIGIT+)? ;
fragment DURATION_UNIT : [smhdw] ;
fragment DIGIT : [0-9] ;
