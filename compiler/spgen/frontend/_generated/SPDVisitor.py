# Generated from SPD.g4 by ANTLR 4.13.2
from antlr4 import *
if "." in __name__:
    from .SPDParser import SPDParser
else:
    from SPDParser import SPDParser

# This class defines a complete generic visitor for a parse tree produced by SPDParser.

class SPDVisitor(ParseTreeVisitor):

    # Visit a parse tree produced by SPDParser#file_.
    def visitFile_(self, ctx:SPDParser.File_Context):
        return self.visitChildren(ctx)


    # Visit a parse tree produced by SPDParser#include.
    def visitInclude(self, ctx:SPDParser.IncludeContext):
        return self.visitChildren(ctx)


    # Visit a parse tree produced by SPDParser#module.
    def visitModule(self, ctx:SPDParser.ModuleContext):
        return self.visitChildren(ctx)


    # Visit a parse tree produced by SPDParser#statement.
    def visitStatement(self, ctx:SPDParser.StatementContext):
        return self.visitChildren(ctx)


    # Visit a parse tree produced by SPDParser#streamDecl.
    def visitStreamDecl(self, ctx:SPDParser.StreamDeclContext):
        return self.visitChildren(ctx)


    # Visit a parse tree produced by SPDParser#portDecl.
    def visitPortDecl(self, ctx:SPDParser.PortDeclContext):
        return self.visitChildren(ctx)


    # Visit a parse tree produced by SPDParser#paramDecl.
    def visitParamDecl(self, ctx:SPDParser.ParamDeclContext):
        return self.visitChildren(ctx)


    # Visit a parse tree produced by SPDParser#regDecl.
    def visitRegDecl(self, ctx:SPDParser.RegDeclContext):
        return self.visitChildren(ctx)


    # Visit a parse tree produced by SPDParser#equ.
    def visitEqu(self, ctx:SPDParser.EquContext):
        return self.visitChildren(ctx)


    # Visit a parse tree produced by SPDParser#hdl.
    def visitHdl(self, ctx:SPDParser.HdlContext):
        return self.visitChildren(ctx)


    # Visit a parse tree produced by SPDParser#hdlParam.
    def visitHdlParam(self, ctx:SPDParser.HdlParamContext):
        return self.visitChildren(ctx)


    # Visit a parse tree produced by SPDParser#drct.
    def visitDrct(self, ctx:SPDParser.DrctContext):
        return self.visitChildren(ctx)


    # Visit a parse tree produced by SPDParser#expr.
    def visitExpr(self, ctx:SPDParser.ExprContext):
        return self.visitChildren(ctx)


    # Visit a parse tree produced by SPDParser#operand.
    def visitOperand(self, ctx:SPDParser.OperandContext):
        return self.visitChildren(ctx)



del SPDParser