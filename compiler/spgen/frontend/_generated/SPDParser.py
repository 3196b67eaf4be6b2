# Generated from SPD.g4 by ANTLR 4.13.2
# encoding: utf-8
from antlr4 import *
from io import StringIO
import sys
if sys.version_info[1] > 5:
	from typing import TextIO
else:
	from typing.io import TextIO

def serializedATN():
    return [
        4,1,50,226,2,0,7,0,2,1,7,1,2,2,7,2,2,3,7,3,2,4,7,4,2,5,7,5,2,6,7,
        6,2,7,7,7,2,8,7,8,2,9,7,9,2,10,7,10,2,11,7,11,2,12,7,12,2,13,7,13,
        1,0,5,0,30,8,0,10,0,12,0,33,9,0,1,0,5,0,36,8,0,10,0,12,0,39,9,0,
        1,0,1,0,1,1,1,1,1,1,1,1,1,2,1,2,1,2,1,2,5,2,51,8,2,10,2,12,2,54,
        9,2,1,3,1,3,1,3,1,3,1,3,1,3,3,3,62,8,3,1,4,1,4,1,4,1,4,1,4,1,4,1,
        4,5,4,71,8,4,10,4,12,4,74,9,4,1,4,1,4,1,4,1,5,1,5,1,5,3,5,82,8,5,
        1,6,1,6,1,6,1,6,1,6,1,6,1,7,1,7,1,7,1,7,3,7,94,8,7,1,7,1,7,1,7,1,
        7,1,8,1,8,1,8,1,8,1,8,1,8,1,8,1,8,1,9,1,9,1,9,1,9,1,9,1,9,1,9,1,
        9,1,9,5,9,117,8,9,10,9,12,9,120,9,9,1,9,1,9,1,9,1,9,1,9,1,9,1,9,
        5,9,129,8,9,10,9,12,9,132,9,9,3,9,134,8,9,1,9,1,9,1,9,1,9,1,9,5,
        9,141,8,9,10,9,12,9,144,9,9,1,9,1,9,3,9,148,8,9,1,9,1,9,1,10,1,10,
        1,10,1,10,3,10,156,8,10,1,11,1,11,1,11,1,11,1,11,5,11,163,8,11,10,
        11,12,11,166,9,11,1,11,1,11,1,11,1,11,1,11,1,11,5,11,174,8,11,10,
        11,12,11,177,9,11,1,11,1,11,1,11,1,12,1,12,1,12,5,12,185,8,12,10,
        12,12,12,188,9,12,1,12,1,12,1,12,1,12,1,12,3,12,195,8,12,1,13,5,
        13,198,8,13,10,13,12,13,201,9,13,1,13,1,13,1,13,1,13,1,13,1,13,1,
        13,5,13,210,8,13,10,13,12,13,213,9,13,3,13,215,8,13,1,13,3,13,218,
        8,13,1,13,1,13,1,13,1,13,3,13,224,8,13,1,13,0,0,14,0,2,4,6,8,10,
        12,14,16,18,20,22,24,26,0,4,1,0,34,37,1,0,45,46,1,0,12,29,2,0,16,
        16,31,32,239,0,31,1,0,0,0,2,42,1,0,0,0,4,46,1,0,0,0,6,61,1,0,0,0,
        8,63,1,0,0,0,10,78,1,0,0,0,12,83,1,0,0,0,14,89,1,0,0,0,16,99,1,0,
        0,0,18,107,1,0,0,0,20,151,1,0,0,0,22,157,1,0,0,0,24,181,1,0,0,0,
        26,199,1,0,0,0,28,30,3,2,1,0,29,28,1,0,0,0,30,33,1,0,0,0,31,29,1,
        0,0,0,31,32,1,0,0,0,32,37,1,0,0,0,33,31,1,0,0,0,34,36,3,4,2,0,35,
        34,1,0,0,0,36,39,1,0,0,0,37,35,1,0,0,0,37,38,1,0,0,0,38,40,1,0,0,
        0,39,37,1,0,0,0,40,41,5,0,0,1,41,1,1,0,0,0,42,43,5,43,0,0,43,44,
        5,47,0,0,44,45,5,1,0,0,45,3,1,0,0,0,46,47,5,33,0,0,47,48,5,46,0,
        0,48,52,5,1,0,0,49,51,3,6,3,0,50,49,1,0,0,0,51,54,1,0,0,0,52,50,
        1,0,0,0,52,53,1,0,0,0,53,5,1,0,0,0,54,52,1,0,0,0,55,62,3,8,4,0,56,
        62,3,12,6,0,57,62,3,14,7,0,58,62,3,16,8,0,59,62,3,18,9,0,60,62,3,
        22,11,0,61,55,1,0,0,0,61,56,1,0,0,0,61,57,1,0,0,0,61,58,1,0,0,0,
        61,59,1,0,0,0,61,60,1,0,0,0,62,7,1,0,0,0,63,64,7,0,0,0,64,65,5,2,
        0,0,65,66,5,46,0,0,66,67,5,3,0,0,67,72,3,10,5,0,68,69,5,4,0,0,69,
        71,3,10,5,0,70,68,1,0,0,0,71,74,1,0,0,0,72,70,1,0,0,0,72,73,1,0,
        0,0,73,75,1,0,0,0,74,72,1,0,0,0,75,76,5,5,0,0,76,77,5,1,0,0,77,9,
        1,0,0,0,78,81,5,46,0,0,79,80,5,6,0,0,80,82,5,46,0,0,81,79,1,0,0,
        0,81,82,1,0,0,0,82,11,1,0,0,0,83,84,5,38,0,0,84,85,5,46,0,0,85,86,
        5,7,0,0,86,87,3,24,12,0,87,88,5,1,0,0,88,13,1,0,0,0,89,90,5,39,0,
        0,90,93,5,46,0,0,91,92,5,6,0,0,92,94,5,46,0,0,93,91,1,0,0,0,93,94,
        1,0,0,0,94,95,1,0,0,0,95,96,5,7,0,0,96,97,3,24,12,0,97,98,5,1,0,
        0,98,15,1,0,0,0,99,100,5,40,0,0,100,101,5,46,0,0,101,102,5,4,0,0,
        102,103,5,46,0,0,103,104,5,7,0,0,104,105,3,24,12,0,105,106,5,1,0,
        0,106,17,1,0,0,0,107,108,5,41,0,0,108,109,5,46,0,0,109,110,5,4,0,
        0,110,111,7,1,0,0,111,112,5,4,0,0,112,113,5,8,0,0,113,118,3,10,5,
        0,114,115,5,4,0,0,115,117,3,10,5,0,116,114,1,0,0,0,117,120,1,0,0,
        0,118,116,1,0,0,0,118,119,1,0,0,0,119,121,1,0,0,0,120,118,1,0,0,
        0,121,122,5,9,0,0,122,123,5,7,0,0,123,124,5,46,0,0,124,133,5,8,0,
        0,125,130,3,24,12,0,126,127,5,4,0,0,127,129,3,24,12,0,128,126,1,
        0,0,0,129,132,1,0,0,0,130,128,1,0,0,0,130,131,1,0,0,0,131,134,1,
        0,0,0,132,130,1,0,0,0,133,125,1,0,0,0,133,134,1,0,0,0,134,135,1,
        0,0,0,135,147,5,9,0,0,136,137,5,10,0,0,137,142,3,20,10,0,138,139,
        5,4,0,0,139,141,3,20,10,0,140,138,1,0,0,0,141,144,1,0,0,0,142,140,
        1,0,0,0,142,143,1,0,0,0,143,145,1,0,0,0,144,142,1,0,0,0,145,146,
        5,11,0,0,146,148,1,0,0,0,147,136,1,0,0,0,147,148,1,0,0,0,148,149,
        1,0,0,0,149,150,5,1,0,0,150,19,1,0,0,0,151,152,5,46,0,0,152,155,
        5,7,0,0,153,156,3,24,12,0,154,156,5,47,0,0,155,153,1,0,0,0,155,154,
        1,0,0,0,156,21,1,0,0,0,157,158,5,42,0,0,158,159,5,8,0,0,159,164,
        5,46,0,0,160,161,5,4,0,0,161,163,5,46,0,0,162,160,1,0,0,0,163,166,
        1,0,0,0,164,162,1,0,0,0,164,165,1,0,0,0,165,167,1,0,0,0,166,164,
        1,0,0,0,167,168,5,9,0,0,168,169,5,7,0,0,169,170,5,8,0,0,170,175,
        5,46,0,0,171,172,5,4,0,0,172,174,5,46,0,0,173,171,1,0,0,0,174,177,
        1,0,0,0,175,173,1,0,0,0,175,176,1,0,0,0,176,178,1,0,0,0,177,175,
        1,0,0,0,178,179,5,9,0,0,179,180,5,1,0,0,180,23,1,0,0,0,181,186,3,
        26,13,0,182,183,7,2,0,0,183,185,3,26,13,0,184,182,1,0,0,0,185,188,
        1,0,0,0,186,184,1,0,0,0,186,187,1,0,0,0,187,194,1,0,0,0,188,186,
        1,0,0,0,189,190,5,30,0,0,190,191,3,24,12,0,191,192,5,6,0,0,192,193,
        3,24,12,0,193,195,1,0,0,0,194,189,1,0,0,0,194,195,1,0,0,0,195,25,
        1,0,0,0,196,198,7,3,0,0,197,196,1,0,0,0,198,201,1,0,0,0,199,197,
        1,0,0,0,199,200,1,0,0,0,200,223,1,0,0,0,201,199,1,0,0,0,202,224,
        5,45,0,0,203,224,5,44,0,0,204,217,5,46,0,0,205,214,5,8,0,0,206,211,
        3,24,12,0,207,208,5,4,0,0,208,210,3,24,12,0,209,207,1,0,0,0,210,
        213,1,0,0,0,211,209,1,0,0,0,211,212,1,0,0,0,212,215,1,0,0,0,213,
        211,1,0,0,0,214,206,1,0,0,0,214,215,1,0,0,0,215,216,1,0,0,0,216,
        218,5,9,0,0,217,205,1,0,0,0,217,218,1,0,0,0,218,224,1,0,0,0,219,
        220,5,8,0,0,220,221,3,24,12,0,221,222,5,9,0,0,222,224,1,0,0,0,223,
        202,1,0,0,0,223,203,1,0,0,0,223,204,1,0,0,0,223,219,1,0,0,0,224,
        27,1,0,0,0,22,31,37,52,61,72,81,93,118,130,133,142,147,155,164,175,
        186,194,199,211,214,217,223
    ]

class SPDParser ( Parser ):

    grammarFileName = "SPD.g4"

    atn = ATNDeserializer().deserialize(serializedATN())

    decisionsToDFA = [ DFA(ds, i) for i, ds in enumerate(atn.decisionToState) ]

    sharedContextCache = PredictionContextCache()

    literalNames = [ "<INVALID>", "';'", "'{'", "'::'", "','", "'}'", "':'", 
                     "'='", "'('", "')'", "'['", "']'", "'*'", "'/'", "'%'", 
                     "'+'", "'-'", "'<<'", "'>>'", "'<'", "'<='", "'>'", 
                     "'>='", "'=='", "'!='", "'&'", "'^'", "'|'", "'&&'", 
                     "'||'", "'?'", "'!'", "'~'", "'Name'", "'Main_In'", 
                     "'Main_Out'", "'Brch_In'", "'Brch_Out'", "'Param'", 
                     "'Reg'", "'EQU'", "'HDL'", "'DRCT'", "'Include'" ]

    symbolicNames = [ "<INVALID>", "<INVALID>", "<INVALID>", "<INVALID>", 
                      "<INVALID>", "<INVALID>", "<INVALID>", "<INVALID>", 
                      "<INVALID>", "<INVALID>", "<INVALID>", "<INVALID>", 
                      "<INVALID>", "<INVALID>", "<INVALID>", "<INVALID>", 
                      "<INVALID>", "<INVALID>", "<INVALID>", "<INVALID>", 
                      "<INVALID>", "<INVALID>", "<INVALID>", "<INVALID>", 
                      "<INVALID>", "<INVALID>", "<INVALID>", "<INVALID>", 
                      "<INVALID>", "<INVALID>", "<INVALID>", "<INVALID>", 
                      "<INVALID>", "NAME", "MAIN_IN", "MAIN_OUT", "BRCH_IN", 
                      "BRCH_OUT", "PARAM", "REG", "EQU", "HDL", "DRCT", 
                      "INCLUDE", "REAL", "INT", "ID", "STRING", "COMMENT", 
                      "WS", "BAD_CHAR" ]

    RULE_file_ = 0
    RULE_include = 1
    RULE_module = 2
    RULE_statement = 3
    RULE_streamDecl = 4
    RULE_portDecl = 5
    RULE_paramDecl = 6
    RULE_regDecl = 7
    RULE_equ = 8
    RULE_hdl = 9
    RULE_hdlParam = 10
    RULE_drct = 11
    RULE_expr = 12
    RULE_operand = 13

    ruleNames =  [ "file_", "include", "module", "statement", "streamDecl", 
                   "portDecl", "paramDecl", "regDecl", "equ", "hdl", "hdlParam", 
                   "drct", "expr", "operand" ]

    EOF = Token.EOF
    T__0=1
    T__1=2
    T__2=3
    T__3=4
    T__4=5
    T__5=6
    T__6=7
    T__7=8
    T__8=9
    T__9=10
    T__10=11
    T__11=12
    T__12=13
    T__13=14
    T__14=15
    T__15=16
    T__16=17
    T__17=18
    T__18=19
    T__19=20
    T__20=21
    T__21=22
    T__22=23
    T__23=24
    T__24=25
    T__25=26
    T__26=27
    T__27=28
    T__28=29
    T__29=30
    T__30=31
    T__31=32
    NAME=33
    MAIN_IN=34
    MAIN_OUT=35
    BRCH_IN=36
    BRCH_OUT=37
    PARAM=38
    REG=39
    EQU=40
    HDL=41
    DRCT=42
    INCLUDE=43
    REAL=44
    INT=45
    ID=46
    STRING=47
    COMMENT=48
    WS=49
    BAD_CHAR=50

    def __init__(self, input:TokenStream, output:TextIO = sys.stdout):
        super().__init__(input, output)
        self.checkVersion("4.13.2")
        self._interp = ParserATNSimulator(self, self.atn, self.decisionsToDFA, self.sharedContextCache)
        self._predicates = None




    class File_Context(ParserRuleContext):
        __slots__ = 'parser'

        def __init__(self, parser, parent:ParserRuleContext=None, invokingState:int=-1):
            super().__init__(parent, invokingState)
            self.parser = parser

        def EOF(self):
            return self.getToken(SPDParser.EOF, 0)

        def include(self, i:int=None):
            if i is None:
                return self.getTypedRuleContexts(SPDParser.IncludeContext)
            else:
                return self.getTypedRuleContext(SPDParser.IncludeContext,i)


        def module(self, i:int=None):
            if i is None:
                return self.getTypedRuleContexts(SPDParser.ModuleContext)
            else:
                return self.getTypedRuleContext(SPDParser.ModuleContext,i)


        def getRuleIndex(self):
            return SPDParser.RULE_file_

        def accept(self, visitor:ParseTreeVisitor):
            if hasattr( visitor, "visitFile_" ):
                return visitor.visitFile_(self)
            else:
                return visitor.visitChildren(self)




    def file_(self):

        localctx = SPDParser.File_Context(self, self._ctx, self.state)
        self.enterRule(localctx, 0, self.RULE_file_)
        self._la = 0 # Token type
        try:
            self.enterOuterAlt(localctx, 1)
            self.state = 31
            self._errHandler.sync(self)
            _la = self._input.LA(1)
            while _la==43:
                self.state = 28
                self.include()
                self.state = 33
                self._errHandler.sync(self)
                _la = self._input.LA(1)

            self.state = 37
            self._errHandler.sync(self)
            _la = self._input.LA(1)
            while _la==33:
                self.state = 34
                self.module()
                self.state = 39
                self._errHandler.sync(self)
                _la = self._input.LA(1)

            self.state = 40
            self.match(SPDParser.EOF)
        except RecognitionException as re:
            localctx.exception = re
            self._errHandler.reportError(self, re)
            self._errHandler.recover(self, re)
        finally:
            self.exitRule()
        return localctx


    class IncludeContext(ParserRuleContext):
        __slots__ = 'parser'

        def __init__(self, parser, parent:ParserRuleContext=None, invokingState:int=-1):
            super().__init__(parent, invokingState)
            self.parser = parser

        def INCLUDE(self):
            return self.getToken(SPDParser.INCLUDE, 0)

        def STRING(self):
            return self.getToken(SPDParser.STRING, 0)

        def getRuleIndex(self):
            return SPDParser.RULE_include

        def accept(self, visitor:ParseTreeVisitor):
            if hasattr( visitor, "visitInclude" ):
                return visitor.visitInclude(self)
            else:
                return visitor.visitChildren(self)




    def include(self):

        localctx = SPDParser.IncludeContext(self, self._ctx, self.state)
        self.enterRule(localctx, 2, self.RULE_include)
        try:
            self.enterOuterAlt(localctx, 1)
            self.state = 42
            self.match(SPDParser.INCLUDE)
            self.state = 43
            self.match(SPDParser.STRING)
            self.state = 44
            self.match(SPDParser.T__0)
        except RecognitionException as re:
            localctx.exception = re
            self._errHandler.reportError(self, re)
            self._errHandler.recover(self, re)
        finally:
            self.exitRule()
        return localctx


    class ModuleContext(ParserRuleContext):
        __slots__ = 'parser'

        def __init__(self, parser, parent:ParserRuleContext=None, invokingState:int=-1):
            super().__init__(parent, invokingState)
            self.parser = parser

        def NAME(self):
            return self.getToken(SPDParser.NAME, 0)

        def ID(self):
            return self.getToken(SPDParser.ID, 0)

        def statement(self, i:int=None):
            if i is None:
                return self.getTypedRuleContexts(SPDParser.StatementContext)
            else:
                return self.getTypedRuleContext(SPDParser.StatementContext,i)


        def getRuleIndex(self):
            return SPDParser.RULE_module

        def accept(self, visitor:ParseTreeVisitor):
            if hasattr( visitor, "visitModule" ):
                return visitor.visitModule(self)
            else:
                return visitor.visitChildren(self)




    def module(self):

        localctx = SPDParser.ModuleContext(self, self._ctx, self.state)
        self.enterRule(localctx, 4, self.RULE_module)
        self._la = 0 # Token type
        try:
            self.enterOuterAlt(localctx, 1)
            self.state = 46
            self.match(SPDParser.NAME)
            self.state = 47
            self.match(SPDParser.ID)
            self.state = 48
            self.match(SPDParser.T__0)
            self.state = 52
            self._errHandler.sync(self)
            _la = self._input.LA(1)
            while (((_la) & ~0x3f) == 0 and ((1 << _la) & 8778913153024) != 0):
                self.state = 49
                self.statement()
                self.state = 54
                self._errHandler.sync(self)
                _la = self._input.LA(1)

        except RecognitionException as re:
            localctx.exception = re
            self._errHandler.reportError(self, re)
            self._errHandler.recover(self, re)
        finally:
            self.exitRule()
        return localctx


    class StatementContext(ParserRuleContext):
        __slots__ = 'parser'

        def __init__(self, parser, parent:ParserRuleContext=None, invokingState:int=-1):
            super().__init__(parent, invokingState)
            self.parser = parser

        def streamDecl(self):
            return self.getTypedRuleContext(SPDParser.StreamDeclContext,0)


        def paramDecl(self):
            return self.getTypedRuleContext(SPDParser.ParamDeclContext,0)


        def regDecl(self):
            return self.getTypedRuleContext(SPDParser.RegDeclContext,0)


        def equ(self):
            return self.getTypedRuleContext(SPDParser.EquContext,0)


        def hdl(self):
            return self.getTypedRuleContext(SPDParser.HdlContext,0)


        def drct(self):
            return self.getTypedRuleContext(SPDParser.DrctContext,0)


        def getRuleIndex(self):
            return SPDParser.RULE_statement

        def accept(self, visitor:ParseTreeVisitor):
            if hasattr( visitor, "visitStatement" ):
                return visitor.visitStatement(self)
            else:
                return visitor.visitChildren(self)




    def statement(self):

        localctx = SPDParser.StatementContext(self, self._ctx, self.state)
        self.enterRule(localctx, 6, self.RULE_statement)
        try:
            self.state = 61
            self._errHandler.sync(self)
            token = self._input.LA(1)
            if token in [34, 35, 36, 37]:
                self.enterOuterAlt(localctx, 1)
                self.state = 55
                self.streamDecl()
                pass
            elif token in [38]:
                self.enterOuterAlt(localctx, 2)
                self.state = 56
                self.paramDecl()
                pass
            elif token in [39]:
                self.enterOuterAlt(localctx, 3)
                self.state = 57
                self.regDecl()
                pass
            elif token in [40]:
                self.enterOuterAlt(localctx, 4)
                self.state = 58
                self.equ()
                pass
            elif token in [41]:
                self.enterOuterAlt(localctx, 5)
                self.state = 59
                self.hdl()
                pass
            elif token in [42]:
                self.enterOuterAlt(localctx, 6)
                self.state = 60
                self.drct()
                pass
            else:
                raise NoViableAltException(self)

        except RecognitionException as re:
            localctx.exception = re
            self._errHandler.reportError(self, re)
            self._errHandler.recover(self, re)
        finally:
            self.exitRule()
        return localctx


    class StreamDeclContext(ParserRuleContext):
        __slots__ = 'parser'

        def __init__(self, parser, parent:ParserRuleContext=None, invokingState:int=-1):
            super().__init__(parent, invokingState)
            self.parser = parser
            self.kind = None # Token

        def ID(self):
            return self.getToken(SPDParser.ID, 0)

        def portDecl(self, i:int=None):
            if i is None:
                return self.getTypedRuleContexts(SPDParser.PortDeclContext)
            else:
                return self.getTypedRuleContext(SPDParser.PortDeclContext,i)


        def MAIN_IN(self):
            return self.getToken(SPDParser.MAIN_IN, 0)

        def MAIN_OUT(self):
            return self.getToken(SPDParser.MAIN_OUT, 0)

        def BRCH_IN(self):
            return self.getToken(SPDParser.BRCH_IN, 0)

        def BRCH_OUT(self):
            return self.getToken(SPDParser.BRCH_OUT, 0)

        def getRuleIndex(self):
            return SPDParser.RULE_streamDecl

        def accept(self, visitor:ParseTreeVisitor):
            if hasattr( visitor, "visitStreamDecl" ):
                return visitor.visitStreamDecl(self)
            else:
                return visitor.visitChildren(self)




    def streamDecl(self):

        localctx = SPDParser.StreamDeclContext(self, self._ctx, self.state)
        self.enterRule(localctx, 8, self.RULE_streamDecl)
        self._la = 0 # Token type
        try:
            self.enterOuterAlt(localctx, 1)
            self.state = 63
            localctx.kind = self._input.LT(1)
            _la = self._input.LA(1)
            if not((((_la) & ~0x3f) == 0 and ((1 << _la) & 257698037760) != 0)):
                localctx.kind = self._errHandler.recoverInline(self)
            else:
                self._errHandler.reportMatch(self)
                self.consume()
            self.state = 64
            self.match(SPDParser.T__1)
            self.state = 65
            self.match(SPDParser.ID)
            self.state = 66
            self.match(SPDParser.T__2)
            self.state = 67
            self.portDecl()
            self.state = 72
            self._errHandler.sync(self)
            _la = self._input.LA(1)
            while _la==4:
                self.state = 68
                self.match(SPDParser.T__3)
                self.state = 69
                self.portDecl()
                self.state = 74
                self._errHandler.sync(self)
                _la = self._input.LA(1)

            self.state = 75
            self.match(SPDParser.T__4)
            self.state = 76
            self.match(SPDParser.T__0)
        except RecognitionException as re:
            localctx.exception = re
            self._errHandler.reportError(self, re)
            self._errHandler.recover(self, re)
        finally:
            self.exitRule()
        return localctx


    class PortDeclContext(ParserRuleContext):
        __slots__ = 'parser'

        def __init__(self, parser, parent:ParserRuleContext=None, invokingState:int=-1):
            super().__init__(parent, invokingState)
            self.parser = parser
            self.typeName = None # Token

        def ID(self, i:int=None):
            if i is None:
                return self.getTokens(SPDParser.ID)
            else:
                return self.getToken(SPDParser.ID, i)

        def getRuleIndex(self):
            return SPDParser.RULE_portDecl

        def accept(self, visitor:ParseTreeVisitor):
            if hasattr( visitor, "visitPortDecl" ):
                return visitor.visitPortDecl(self)
            else:
                return visitor.visitChildren(self)




    def portDecl(self):

        localctx = SPDParser.PortDeclContext(self, self._ctx, self.state)
        self.enterRule(localctx, 10, self.RULE_portDecl)
        self._la = 0 # Token type
        try:
            self.enterOuterAlt(localctx, 1)
            self.state = 78
            self.match(SPDParser.ID)
            self.state = 81
            self._errHandler.sync(self)
            _la = self._input.LA(1)
            if _la==6:
                self.state = 79
                self.match(SPDParser.T__5)
                self.state = 80
                localctx.typeName = self.match(SPDParser.ID)


        except RecognitionException as re:
            localctx.exception = re
            self._errHandler.reportError(self, re)
            self._errHandler.recover(self, re)
        finally:
            self.exitRule()
        return localctx


    class ParamDeclContext(ParserRuleContext):
        __slots__ = 'parser'

        def __init__(self, parser, parent:ParserRuleContext=None, invokingState:int=-1):
            super().__init__(parent, invokingState)
            self.parser = parser

        def PARAM(self):
            return self.getToken(SPDParser.PARAM, 0)

        def ID(self):
            return self.getToken(SPDParser.ID, 0)

        def expr(self):
            return self.getTypedRuleContext(SPDParser.ExprContext,0)


        def getRuleIndex(self):
            return SPDParser.RULE_paramDecl

        def accept(self, visitor:ParseTreeVisitor):
            if hasattr( visitor, "visitParamDecl" ):
                return visitor.visitParamDecl(self)
            else:
                return visitor.visitChildren(self)




    def paramDecl(self):

        localctx = SPDParser.ParamDeclContext(self, self._ctx, self.state)
        self.enterRule(localctx, 12, self.RULE_paramDecl)
        try:
            self.enterOuterAlt(localctx, 1)
            self.state = 83
            self.match(SPDParser.PARAM)
            self.state = 84
            self.match(SPDParser.ID)
            self.state = 85
            self.match(SPDParser.T__6)
            self.state = 86
            self.expr()
            self.state = 87
            self.match(SPDParser.T__0)
        except RecognitionException as re:
            localctx.exception = re
            self._errHandler.reportError(self, re)
            self._errHandler.recover(self, re)
        finally:
            self.exitRule()
        return localctx


    class RegDeclContext(ParserRuleContext):
        __slots__ = 'parser'

        def __init__(self, parser, parent:ParserRuleContext=None, invokingState:int=-1):
            super().__init__(parent, invokingState)
            self.parser = parser
            self.typeName = None # Token

        def REG(self):
            return self.getToken(SPDParser.REG, 0)

        def ID(self, i:int=None):
            if i is None:
                return self.getTokens(SPDParser.ID)
            else:
                return self.getToken(SPDParser.ID, i)

        def expr(self):
            return self.getTypedRuleContext(SPDParser.ExprContext,0)


        def getRuleIndex(self):
            return SPDParser.RULE_regDecl

        def accept(self, visitor:ParseTreeVisitor):
            if hasattr( visitor, "visitRegDecl" ):
                return visitor.visitRegDecl(self)
            else:
                return visitor.visitChildren(self)




    def regDecl(self):

        localctx = SPDParser.RegDeclContext(self, self._ctx, self.state)
        self.enterRule(localctx, 14, self.RULE_regDecl)
        self._la = 0 # Token type
        try:
            self.enterOuterAlt(localctx, 1)
            self.state = 89
            self.match(SPDParser.REG)
            self.state = 90
            self.match(SPDParser.ID)
            self.state = 93
            self._errHandler.sync(self)
            _la = self._input.LA(1)
            if _la==6:
                self.state = 91
                self.match(SPDParser.T__5)
                self.state = 92
                localctx.typeName = self.match(SPDParser.ID)


            self.state = 95
            self.match(SPDParser.T__6)
            self.state = 96
            self.expr()
            self.state = 97
            self.match(SPDParser.T__0)
        except RecognitionException as re:
            localctx.exception = re
            self._errHandler.reportError(self, re)
            self._errHandler.recover(self, re)
        finally:
            self.exitRule()
        return localctx


    class EquContext(ParserRuleContext):
        __slots__ = 'parser'

        def __init__(self, parser, parent:ParserRuleContext=None, invokingState:int=-1):
            super().__init__(parent, invokingState)
            self.parser = parser
            self.label = None # Token
            self.target = None # Token

        def EQU(self):
            return self.getToken(SPDParser.EQU, 0)

        def expr(self):
            return self.getTypedRuleContext(SPDParser.ExprContext,0)


        def ID(self, i:int=None):
            if i is None:
                return self.getTokens(SPDParser.ID)
            else:
                return self.getToken(SPDParser.ID, i)

        def getRuleIndex(self):
            return SPDParser.RULE_equ

        def accept(self, visitor:ParseTreeVisitor):
            if hasattr( visitor, "visitEqu" ):
                return visitor.visitEqu(self)
            else:
                return visitor.visitChildren(self)




    def equ(self):

        localctx = SPDParser.EquContext(self, self._ctx, self.state)
        self.enterRule(localctx, 16, self.RULE_equ)
        try:
            self.enterOuterAlt(localctx, 1)
            self.state = 99
            self.match(SPDParser.EQU)
            self.state = 100
            localctx.label = self.match(SPDParser.ID)
            self.state = 101
            self.match(SPDParser.T__3)
            self.state = 102
            localctx.target = self.match(SPDParser.ID)
            self.state = 103
            self.match(SPDParser.T__6)
            self.state = 104
            self.expr()
            self.state = 105
            self.match(SPDParser.T__0)
        except RecognitionException as re:
            localctx.exception = re
            self._errHandler.reportError(self, re)
            self._errHandler.recover(self, re)
        finally:
            self.exitRule()
        return localctx


    class HdlContext(ParserRuleContext):
        __slots__ = 'parser'

        def __init__(self, parser, parent:ParserRuleContext=None, invokingState:int=-1):
            super().__init__(parent, invokingState)
            self.parser = parser
            self.label = None # Token
            self.latency = None # Token
            self.callee = None # Token

        def HDL(self):
            return self.getToken(SPDParser.HDL, 0)

        def portDecl(self, i:int=None):
            if i is None:
                return self.getTypedRuleContexts(SPDParser.PortDeclContext)
            else:
                return self.getTypedRuleContext(SPDParser.PortDeclContext,i)


        def ID(self, i:int=None):
            if i is None:
                return self.getTokens(SPDParser.ID)
            else:
                return self.getToken(SPDParser.ID, i)

        def INT(self):
            return self.getToken(SPDParser.INT, 0)

        def expr(self, i:int=None):
            if i is None:
                return self.getTypedRuleContexts(SPDParser.ExprContext)
            else:
                return self.getTypedRuleContext(SPDParser.ExprContext,i)


        def hdlParam(self, i:int=None):
            if i is None:
                return self.getTypedRuleContexts(SPDParser.HdlParamContext)
            else:
                return self.getTypedRuleContext(SPDParser.HdlParamContext,i)


        def getRuleIndex(self):
            return SPDParser.RULE_hdl

        def accept(self, visitor:ParseTreeVisitor):
            if hasattr( visitor, "visitHdl" ):
                return visitor.visitHdl(self)
            else:
                return visitor.visitChildren(self)




    def hdl(self):

        localctx = SPDParser.HdlContext(self, self._ctx, self.state)
        self.enterRule(localctx, 18, self.RULE_hdl)
        self._la = 0 # Token type
        try:
            self.enterOuterAlt(localctx, 1)
            self.state = 107
            self.match(SPDParser.HDL)
            self.state = 108
            localctx.label = self.match(SPDParser.ID)
            self.state = 109
            self.match(SPDParser.T__3)
            self.state = 110
            localctx.latency = self._input.LT(1)
            _la = self._input.LA(1)
            if not(_la==45 or _la==46):
                localctx.latency = self._errHandler.recoverInline(self)
            else:
                self._errHandler.reportMatch(self)
                self.consume()
            self.state = 111
            self.match(SPDParser.T__3)
            self.state = 112
            self.match(SPDParser.T__7)
            self.state = 113
            self.portDecl()
            self.state = 118
            self._errHandler.sync(self)
            _la = self._input.LA(1)
            while _la==4:
                self.state = 114
                self.match(SPDParser.T__3)
                self.state = 115
                self.portDecl()
                self.state = 120
                self._errHandler.sync(self)
                _la = self._input.LA(1)

            self.state = 121
            self.match(SPDParser.T__8)
            self.state = 122
            self.match(SPDParser.T__6)
            self.state = 123
            localctx.callee = self.match(SPDParser.ID)
            self.state = 124
            self.match(SPDParser.T__7)
            self.state = 133
            self._errHandler.sync(self)
            _la = self._input.LA(1)
            if (((_la) & ~0x3f) == 0 and ((1 << _la) & 123151744827648) != 0):
                self.state = 125
                self.expr()
                self.state = 130
                self._errHandler.sync(self)
                _la = self._input.LA(1)
                while _la==4:
                    self.state = 126
                    self.match(SPDParser.T__3)
                    self.state = 127
                    self.expr()
                    self.state = 132
                    self._errHandler.sync(self)
                    _la = self._input.LA(1)



            self.state = 135
            self.match(SPDParser.T__8)
            self.state = 147
            self._errHandler.sync(self)
            _la = self._input.LA(1)
            if _la==10:
                self.state = 136
                self.match(SPDParser.T__9)
                self.state = 137
                self.hdlParam()
                self.state = 142
                self._errHandler.sync(self)
                _la = self._input.LA(1)
                while _la==4:
                    self.state = 138
                    self.match(SPDParser.T__3)
                    self.state = 139
                    self.hdlParam()
                    self.state = 144
                    self._errHandler.sync(self)
                    _la = self._input.LA(1)

                self.state = 145
                self.match(SPDParser.T__10)


            self.state = 149
            self.match(SPDParser.T__0)
        except RecognitionException as re:
            localctx.exception = re
            self._errHandler.reportError(self, re)
            self._errHandler.recover(self, re)
        finally:
            self.exitRule()
        return localctx


    class HdlParamContext(ParserRuleContext):
        __slots__ = 'parser'

        def __init__(self, parser, parent:ParserRuleContext=None, invokingState:int=-1):
            super().__init__(parent, invokingState)
            self.parser = parser

        def ID(self):
            return self.getToken(SPDParser.ID, 0)

        def expr(self):
            return self.getTypedRuleContext(SPDParser.ExprContext,0)


        def STRING(self):
            return self.getToken(SPDParser.STRING, 0)

        def getRuleIndex(self):
            return SPDParser.RULE_hdlParam

        def accept(self, visitor:ParseTreeVisitor):
            if hasattr( visitor, "visitHdlParam" ):
                return visitor.visitHdlParam(self)
            else:
                return visitor.visitChildren(self)




    def hdlParam(self):

        localctx = SPDParser.HdlParamContext(self, self._ctx, self.state)
        self.enterRule(localctx, 20, self.RULE_hdlParam)
        try:
            self.enterOuterAlt(localctx, 1)
            self.state = 151
            self.match(SPDParser.ID)
            self.state = 152
            self.match(SPDParser.T__6)
            self.state = 155
            self._errHandler.sync(self)
            token = self._input.LA(1)
            if token in [8, 16, 31, 32, 44, 45, 46]:
                self.state = 153
                self.expr()
                pass
            elif token in [47]:
                self.state = 154
                self.match(SPDParser.STRING)
                pass
            else:
                raise NoViableAltException(self)

        except RecognitionException as re:
            localctx.exception = re
            self._errHandler.reportError(self, re)
            self._errHandler.recover(self, re)
        finally:
            self.exitRule()
        return localctx


    class DrctContext(ParserRuleContext):
        __slots__ = 'parser'

        def __init__(self, parser, parent:ParserRuleContext=None, invokingState:int=-1):
            super().__init__(parent, invokingState)
            self.parser = parser

        def DRCT(self):
            return self.getToken(SPDParser.DRCT, 0)

        def ID(self, i:int=None):
            if i is None:
                return self.getTokens(SPDParser.ID)
            else:
                return self.getToken(SPDParser.ID, i)

        def getRuleIndex(self):
            return SPDParser.RULE_drct

        def accept(self, visitor:ParseTreeVisitor):
            if hasattr( visitor, "visitDrct" ):
                return visitor.visitDrct(self)
            else:
                return visitor.visitChildren(self)




    def drct(self):

        localctx = SPDParser.DrctContext(self, self._ctx, self.state)
        self.enterRule(localctx, 22, self.RULE_drct)
        self._la = 0 # Token type
        try:
            self.enterOuterAlt(localctx, 1)
            self.state = 157
            self.match(SPDParser.DRCT)
            self.state = 158
            self.match(SPDParser.T__7)
            self.state = 159
            self.match(SPDParser.ID)
            self.state = 164
            self._errHandler.sync(self)
            _la = self._input.LA(1)
            while _la==4:
                self.state = 160
                self.match(SPDParser.T__3)
                self.state = 161
                self.match(SPDParser.ID)
                self.state = 166
                self._errHandler.sync(self)
                _la = self._input.LA(1)

            self.state = 167
            self.match(SPDParser.T__8)
            self.state = 168
            self.match(SPDParser.T__6)
            self.state = 169
            self.match(SPDParser.T__7)
            self.state = 170
            self.match(SPDParser.ID)
            self.state = 175
            self._errHandler.sync(self)
            _la = self._input.LA(1)
            while _la==4:
                self.state = 171
                self.match(SPDParser.T__3)
                self.state = 172
                self.match(SPDParser.ID)
                self.state = 177
                self._errHandler.sync(self)
                _la = self._input.LA(1)

            self.state = 178
            self.match(SPDParser.T__8)
            self.state = 179
            self.match(SPDParser.T__0)
        except RecognitionException as re:
            localctx.exception = re
            self._errHandler.reportError(self, re)
            self._errHandler.recover(self, re)
        finally:
            self.exitRule()
        return localctx


    class ExprContext(ParserRuleContext):
        __slots__ = 'parser'

        def __init__(self, parser, parent:ParserRuleContext=None, invokingState:int=-1):
            super().__init__(parent, invokingState)
            self.parser = parser

        def operand(self, i:int=None):
            if i is None:
                return self.getTypedRuleContexts(SPDParser.OperandContext)
            else:
                return self.getTypedRuleContext(SPDParser.OperandContext,i)


        def expr(self, i:int=None):
            if i is None:
                return self.getTypedRuleContexts(SPDParser.ExprContext)
            else:
                return self.getTypedRuleContext(SPDParser.ExprContext,i)


        def getRuleIndex(self):
            return SPDParser.RULE_expr

        def accept(self, visitor:ParseTreeVisitor):
            if hasattr( visitor, "visitExpr" ):
                return visitor.visitExpr(self)
            else:
                return visitor.visitChildren(self)




    def expr(self):

        localctx = SPDParser.ExprContext(self, self._ctx, self.state)
        self.enterRule(localctx, 24, self.RULE_expr)
        self._la = 0 # Token type
        try:
            self.enterOuterAlt(localctx, 1)
            self.state = 181
            self.operand()
            self.state = 186
            self._errHandler.sync(self)
            _la = self._input.LA(1)
            while (((_la) & ~0x3f) == 0 and ((1 << _la) & 1073737728) != 0):
                self.state = 182
                _la = self._input.LA(1)
                if not((((_la) & ~0x3f) == 0 and ((1 << _la) & 1073737728) != 0)):
                    self._errHandler.recoverInline(self)
                else:
                    self._errHandler.reportMatch(self)
                    self.consume()
                self.state = 183
                self.operand()
                self.state = 188
                self._errHandler.sync(self)
                _la = self._input.LA(1)

            self.state = 194
            self._errHandler.sync(self)
            _la = self._input.LA(1)
            if _la==30:
                self.state = 189
                self.match(SPDParser.T__29)
                self.state = 190
                self.expr()
                self.state = 191
                self.match(SPDParser.T__5)
                self.state = 192
                self.expr()


        except RecognitionException as re:
            localctx.exception = re
            self._errHandler.reportError(self, re)
            self._errHandler.recover(self, re)
        finally:
            self.exitRule()
        return localctx


    class OperandContext(ParserRuleContext):
        __slots__ = 'parser'

        def __init__(self, parser, parent:ParserRuleContext=None, invokingState:int=-1):
            super().__init__(parent, invokingState)
            self.parser = parser

        def INT(self):
            return self.getToken(SPDParser.INT, 0)

        def REAL(self):
            return self.getToken(SPDParser.REAL, 0)

        def ID(self):
            return self.getToken(SPDParser.ID, 0)

        def expr(self, i:int=None):
            if i is None:
                return self.getTypedRuleContexts(SPDParser.ExprContext)
            else:
                return self.getTypedRuleContext(SPDParser.ExprContext,i)


        def getRuleIndex(self):
            return SPDParser.RULE_operand

        def accept(self, visitor:ParseTreeVisitor):
            if hasattr( visitor, "visitOperand" ):
                return visitor.visitOperand(self)
            else:
                return visitor.visitChildren(self)




    def operand(self):

        localctx = SPDParser.OperandContext(self, self._ctx, self.state)
        self.enterRule(localctx, 26, self.RULE_operand)
        self._la = 0 # Token type
        try:
            self.enterOuterAlt(localctx, 1)
            self.state = 199
            self._errHandler.sync(self)
            _la = self._input.LA(1)
            while (((_la) & ~0x3f) == 0 and ((1 << _la) & 6442516480) != 0):
                self.state = 196
                _la = self._input.LA(1)
                if not((((_la) & ~0x3f) == 0 and ((1 << _la) & 6442516480) != 0)):
                    self._errHandler.recoverInline(self)
                else:
                    self._errHandler.reportMatch(self)
                    self.consume()
                self.state = 201
                self._errHandler.sync(self)
                _la = self._input.LA(1)

            self.state = 223
            self._errHandler.sync(self)
            token = self._input.LA(1)
            if token in [45]:
                self.state = 202
                self.match(SPDParser.INT)
                pass
            elif token in [44]:
                self.state = 203
                self.match(SPDParser.REAL)
                pass
            elif token in [46]:
                self.state = 204
                self.match(SPDParser.ID)
                self.state = 217
                self._errHandler.sync(self)
                _la = self._input.LA(1)
                if _la==8:
                    self.state = 205
                    self.match(SPDParser.T__7)
                    self.state = 214
                    self._errHandler.sync(self)
                    _la = self._input.LA(1)
                    if (((_la) & ~0x3f) == 0 and ((1 << _la) & 123151744827648) != 0):
                        self.state = 206
                        self.expr()
                        self.state = 211
                        self._errHandler.sync(self)
                        _la = self._input.LA(1)
                        while _la==4:
                            self.state = 207
                            self.match(SPDParser.T__3)
                            self.state = 208
                            self.expr()
                            self.state = 213
                            self._errHandler.sync(self)
                            _la = self._input.LA(1)



                    self.state = 216
                    self.match(SPDParser.T__8)


                pass
            elif token in [8]:
                self.state = 219
                self.match(SPDParser.T__7)
                self.state = 220
                self.expr()
                self.state = 221
                self.match(SPDParser.T__8)
                pass
            else:
                raise NoViableAltException(self)

        except RecognitionException as re:
            localctx.exception = re
            self._errHandler.reportError(self, re)
            self._errHandler.recover(self, re)
        finally:
            self.exitRule()
        return localctx





