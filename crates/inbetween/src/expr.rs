//! Expressions for `expr` segments: parsed once into a postfix program, evaluated without allocation.
//!
//! # Grammar
//!
//! This is the grammar of the spec's `expr` segment, with precedence from loosest to tightest:
//!
//! ```text
//! sum     = product (("+" | "-") product)*        left to right
//! product = unary (("*" | "/") unary)*            left to right
//! unary   = ("-" | "+") unary | power             so -u^2 is -(u^2)
//! power   = primary ("^" unary)?                  right to left: 2^3^2 is 2^9, and 2^-u is 2^(-u)
//! primary = number | "u" | "frame" | "time" | "pi" | function "(" sum ("," sum)* ")" | "(" sum ")"
//! ```
//!
//! Numbers are JSON numbers without a sign (`2`, `0.5`, `1e-3`, `1E+2`; no leading zeros such as
//! `01`), and, as a harmless extension, `.5` and `2.`. A literal too large for an `f64` is an error.
//! The functions are `sin cos tan asin acos atan sqrt exp ln abs floor` with one argument and
//! `atan2(y, x)`, `min(a, b)`, `max(a, b)` with two; `min` and `max` return NaN if either argument is
//! NaN, so a NaN is never hidden. Names are case-sensitive, whitespace (space, tab, line feed, carriage
//! return, form feed) may stand between any two tokens, and there is nothing else: no implicit
//! multiplication and no other names. All float math goes through [`crate::math`].
//!
//! # Limits
//!
//! A source longer than [`MAX_EXPR_LEN`] bytes, or nesting more than [`MAX_EXPR_DEPTH`] levels
//! (each parenthesis, function call, unary sign and `^` exponent is a level), is refused with an
//! error, so no input can overflow the stack either while parsing or while evaluating.
//!
//! # Compiled form
//!
//! [`Expr::parse`] compiles the source to a postfix program and measures the largest operand stack
//! it needs; [`Expr::eval`] runs that program over a fixed array on the machine stack, so evaluation
//! takes `&self`, never allocates, never re-parses and never panics.
//!
//! # Why not a crate
//!
//! We looked at exmex, the best-kept general expression crate, and it does not parse this grammar:
//! its unary operators bind tighter than every binary one (`-1^2` is 1 there, −1 here), `atan2` is an
//! infix binary operator rather than a two-argument function, unknown identifiers become variables
//! instead of errors, it defines many more names (`log`, `E`, `PI`, `signum`, ...), it needs `std`,
//! and its errors carry no byte offset. Wrapping it would mean re-checking its input with a parser of
//! our own, so this module is that parser: about as long as the adapter would have been, exact to
//! the spec, `no_std`, with positioned errors and hard limits.

use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;
use core::str::FromStr;

use crate::math;

/// The longest expression source accepted, in bytes.
pub const MAX_EXPR_LEN: usize = 4096;

/// The deepest nesting accepted: each parenthesis, function call, unary sign and `^` exponent adds a
/// level.
pub const MAX_EXPR_DEPTH: usize = 64;

/// Size of the evaluation stack. The depth limit keeps every accepted program well inside it (each
/// level can hold at most a few pending operands); the parser checks it anyway.
const EVAL_STACK: usize = 4 * MAX_EXPR_DEPTH + 8;

/// Programs that need no more stack than this (nearly all) run on a small array, so an evaluation
/// does not clear the full [`EVAL_STACK`] every time.
const SMALL_STACK: usize = 16;

/// What the parser expects where an operand is missing.
const OPERAND: &str = "a number, a variable, a function or `(`";

/// The values of the variables an expression may use.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ExprVars {
    /// Position in the segment, 0 at its start key and 1 at its end key (after the segment's ease).
    pub u: f64,
    /// Track frame, `f_i + u·N_i`.
    pub frame: f64,
    /// Seconds, `frame / fps`.
    pub time: f64,
}

/// A parse error: where it happened and what it was.
///
/// Displays as `at column {offset + 1}: {kind}`.
#[derive(thiserror::Error, Debug, Clone, PartialEq)]
#[error("at column {}: {kind}", .offset + 1)]
pub struct ExprError {
    /// Byte offset into the source, 0-based.
    pub offset: usize,
    /// What went wrong.
    pub kind: ExprErrorKind,
}

/// What went wrong while parsing an expression.
#[derive(thiserror::Error, Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum ExprErrorKind {
    /// A character that starts no token.
    #[error("unexpected character `{found}`")]
    UnexpectedChar {
        /// The character.
        found: char,
    },
    /// The source ended where more was needed.
    #[error("unexpected end of expression; expected {expected}")]
    UnexpectedEnd {
        /// What was needed.
        expected: &'static str,
    },
    /// A token that cannot stand where it stands.
    #[error("expected {expected}, found `{found}`")]
    UnexpectedToken {
        /// What could have stood there.
        expected: &'static str,
        /// The token's text.
        found: String,
    },
    /// A name that is neither a variable, `pi`, nor a function.
    #[error(
        "unknown name `{name}`; expected u, frame, time, pi or one of the functions \
         sin, cos, tan, asin, acos, atan, atan2, sqrt, exp, ln, abs, min, max, floor"
    )]
    UnknownName {
        /// The name as written.
        name: String,
    },
    /// A function called with the wrong number of arguments.
    #[error("`{function}` takes {expected} {}, found {found}", plural(*.expected))]
    WrongArgumentCount {
        /// The function's name.
        function: &'static str,
        /// How many arguments it takes.
        expected: usize,
        /// How many it was given.
        found: usize,
    },
    /// A number that is malformed, has leading zeros, or does not fit an `f64`.
    #[error("malformed number `{text}`")]
    BadNumber {
        /// The number as written.
        text: String,
    },
    /// A function name without its `(`.
    #[error("the function `{function}` needs its arguments in parentheses")]
    MissingArguments {
        /// The function's name.
        function: &'static str,
    },
    /// The source is longer than [`MAX_EXPR_LEN`].
    #[error("expression is {len} bytes long; the limit is {max}")]
    TooLong {
        /// The source's length in bytes.
        len: usize,
        /// [`MAX_EXPR_LEN`].
        max: usize,
    },
    /// The expression nests deeper than [`MAX_EXPR_DEPTH`].
    #[error("expression nests more than {max} levels deep")]
    TooDeep {
        /// [`MAX_EXPR_DEPTH`].
        max: usize,
    },
    /// The source is empty or only whitespace.
    #[error("expression is empty")]
    Empty,
}

fn plural(n: usize) -> &'static str {
    if n == 1 {
        "argument"
    } else {
        "arguments"
    }
}

/// A function of one argument.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Fn1 {
    Sin,
    Cos,
    Tan,
    Asin,
    Acos,
    Atan,
    Sqrt,
    Exp,
    Ln,
    Abs,
    Floor,
}

impl Fn1 {
    #[inline]
    fn apply(self, x: f64) -> f64 {
        match self {
            Fn1::Sin => math::sin(x),
            Fn1::Cos => math::cos(x),
            Fn1::Tan => math::tan(x),
            Fn1::Asin => math::asin(x),
            Fn1::Acos => math::acos(x),
            Fn1::Atan => math::atan(x),
            Fn1::Sqrt => math::sqrt(x),
            Fn1::Exp => math::exp(x),
            Fn1::Ln => math::ln(x),
            Fn1::Abs => math::abs(x),
            Fn1::Floor => math::floor(x),
        }
    }
}

/// A function of two arguments.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Fn2 {
    Atan2,
    Min,
    Max,
}

impl Fn2 {
    #[inline]
    fn apply(self, a: f64, b: f64) -> f64 {
        match self {
            Fn2::Atan2 => math::atan2(a, b),
            Fn2::Min | Fn2::Max if a.is_nan() || b.is_nan() => f64::NAN,
            Fn2::Min => a.min(b),
            Fn2::Max => a.max(b),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Callee {
    One(Fn1),
    Two(Fn2),
}

impl Callee {
    fn arity(self) -> usize {
        match self {
            Callee::One(_) => 1,
            Callee::Two(_) => 2,
        }
    }
}

/// Every function, by name.
const FUNCTIONS: [(&str, Callee); 14] = [
    ("sin", Callee::One(Fn1::Sin)),
    ("cos", Callee::One(Fn1::Cos)),
    ("tan", Callee::One(Fn1::Tan)),
    ("asin", Callee::One(Fn1::Asin)),
    ("acos", Callee::One(Fn1::Acos)),
    ("atan", Callee::One(Fn1::Atan)),
    ("sqrt", Callee::One(Fn1::Sqrt)),
    ("exp", Callee::One(Fn1::Exp)),
    ("ln", Callee::One(Fn1::Ln)),
    ("abs", Callee::One(Fn1::Abs)),
    ("floor", Callee::One(Fn1::Floor)),
    ("atan2", Callee::Two(Fn2::Atan2)),
    ("min", Callee::Two(Fn2::Min)),
    ("max", Callee::Two(Fn2::Max)),
];

/// One instruction of the postfix program.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Op {
    Num(f64),
    U,
    Frame,
    Time,
    Neg,
    Add,
    Sub,
    Mul,
    Div,
    Pow,
    Call1(Fn1),
    Call2(Fn2),
}

impl Op {
    /// How the operand stack's height changes when this runs.
    fn stack_effect(self) -> isize {
        match self {
            Op::Num(_) | Op::U | Op::Frame | Op::Time => 1,
            Op::Neg | Op::Call1(_) => 0,
            Op::Add | Op::Sub | Op::Mul | Op::Div | Op::Pow | Op::Call2(_) => -1,
        }
    }
}

/// A parsed expression, ready to evaluate any number of times.
///
/// Two expressions are equal when their sources are equal.
#[derive(Clone, Debug)]
pub struct Expr {
    source: String,
    program: Vec<Op>,
    /// The most operands the program ever holds at once.
    stack_needed: usize,
}

impl PartialEq for Expr {
    fn eq(&self, other: &Self) -> bool {
        self.source == other.source
    }
}

impl Expr {
    /// Parses `source` by the spec's expression grammar (see the module docs).
    ///
    /// # Errors
    ///
    /// An [`ExprError`] with the byte offset of the first problem: a character or token out of place,
    /// an unknown name, a malformed number, a function with the wrong number of arguments, an empty
    /// source, or one beyond [`MAX_EXPR_LEN`] or [`MAX_EXPR_DEPTH`].
    pub fn parse(source: &str) -> Result<Expr, ExprError> {
        if source.len() > MAX_EXPR_LEN {
            return Err(ExprError {
                offset: MAX_EXPR_LEN,
                kind: ExprErrorKind::TooLong {
                    len: source.len(),
                    max: MAX_EXPR_LEN,
                },
            });
        }
        let mut parser = Parser::new(source);
        if parser.peek()?.kind == Tok::End {
            return Err(ExprError {
                offset: 0,
                kind: ExprErrorKind::Empty,
            });
        }
        parser.sum()?;
        let token = parser.next()?;
        if token.kind != Tok::End {
            return Err(parser.unexpected(token, "an operator or the end of the expression"));
        }
        Ok(Expr {
            source: String::from(source),
            program: parser.program,
            stack_needed: parser.max_height,
        })
    }

    /// The value at `vars`. It may be infinite or NaN (`ln(0)`, `sqrt(-1)`, `1/0`); the caller decides
    /// what that means.
    #[must_use]
    pub fn eval(&self, vars: &ExprVars) -> f64 {
        if self.stack_needed <= SMALL_STACK {
            self.run::<SMALL_STACK>(vars)
        } else {
            self.run::<EVAL_STACK>(vars)
        }
    }

    /// Runs the program on a stack of `N` operands (at least `stack_needed`).
    #[inline]
    fn run<const N: usize>(&self, vars: &ExprVars) -> f64 {
        let mut stack = Stack {
            items: [0.0; N],
            len: 0,
        };
        for &op in &self.program {
            match op {
                Op::Num(x) => stack.push(x),
                Op::U => stack.push(vars.u),
                Op::Frame => stack.push(vars.frame),
                Op::Time => stack.push(vars.time),
                Op::Neg => stack.unary(|x| -x),
                Op::Add => stack.binary(|a, b| a + b),
                Op::Sub => stack.binary(|a, b| a - b),
                Op::Mul => stack.binary(|a, b| a * b),
                Op::Div => stack.binary(|a, b| a / b),
                Op::Pow => stack.binary(math::powf),
                Op::Call1(f) => stack.unary(|x| f.apply(x)),
                Op::Call2(f) => stack.binary(|a, b| f.apply(a, b)),
            }
        }
        if stack.len == 1 {
            stack.pop()
        } else {
            // The parser only builds programs that leave exactly one value.
            f64::NAN
        }
    }

    /// The value and its derivative along a direction in the variables, by forward-mode
    /// automatic differentiation over the compiled program (exact up to rounding, no step size).
    ///
    /// `rates` holds d/dx of each variable (for d/du inside a segment: `u` → 1, `frame` → N,
    /// `time` → N / fps). Where a function has no derivative (`floor`, `abs` at 0, `min`/`max` at a
    /// tie) the one-sided derivative of the branch taken is used; `floor` counts as flat.
    #[must_use]
    pub fn eval_with_derivative(&self, vars: &ExprVars, rates: &ExprVars) -> (f64, f64) {
        let mut stack: alloc::vec::Vec<(f64, f64)> =
            alloc::vec::Vec::with_capacity(self.stack_needed);
        // Chain rule that treats a zero inner rate as exactly zero (no 0·∞ = NaN).
        let chain = |outer: f64, inner: f64| if inner == 0.0 { 0.0 } else { outer * inner };
        for &op in &self.program {
            let item = match op {
                Op::Num(x) => (x, 0.0),
                Op::U => (vars.u, rates.u),
                Op::Frame => (vars.frame, rates.frame),
                Op::Time => (vars.time, rates.time),
                Op::Neg => {
                    let (a, da) = stack.pop().unwrap_or((f64::NAN, f64::NAN));
                    (-a, -da)
                }
                Op::Call1(f) => {
                    let (a, da) = stack.pop().unwrap_or((f64::NAN, f64::NAN));
                    let v = f.apply(a);
                    let d = match f {
                        Fn1::Sin => chain(math::cos(a), da),
                        Fn1::Cos => chain(-math::sin(a), da),
                        Fn1::Tan => chain(1.0 + v * v, da),
                        Fn1::Asin => chain(1.0 / math::sqrt(1.0 - a * a), da),
                        Fn1::Acos => chain(-1.0 / math::sqrt(1.0 - a * a), da),
                        Fn1::Atan => chain(1.0 / (1.0 + a * a), da),
                        Fn1::Sqrt => chain(0.5 / v, da),
                        Fn1::Exp => chain(v, da),
                        Fn1::Ln => chain(1.0 / a, da),
                        Fn1::Abs => chain(if a < 0.0 { -1.0 } else { 1.0 }, da),
                        Fn1::Floor => 0.0,
                    };
                    (v, d)
                }
                Op::Add | Op::Sub | Op::Mul | Op::Div | Op::Pow | Op::Call2(_) => {
                    let (b, db) = stack.pop().unwrap_or((f64::NAN, f64::NAN));
                    let (a, da) = stack.pop().unwrap_or((f64::NAN, f64::NAN));
                    match op {
                        Op::Add => (a + b, da + db),
                        Op::Sub => (a - b, da - db),
                        Op::Mul => (a * b, chain(b, da) + chain(a, db)),
                        Op::Div => (a / b, (chain(b, da) - chain(a, db)) / (b * b)),
                        Op::Pow => {
                            let v = math::powf(a, b);
                            let from_base = chain(b * math::powf(a, b - 1.0), da);
                            let from_exponent = chain(v * math::ln(a), db);
                            (v, from_base + from_exponent)
                        }
                        Op::Call2(Fn2::Atan2) => {
                            let r2 = a * a + b * b;
                            (math::atan2(a, b), (chain(b, da) - chain(a, db)) / r2)
                        }
                        Op::Call2(f) => {
                            let v = f.apply(a, b);
                            let pick_a = match f {
                                Fn2::Min => a <= b,
                                _ => a >= b,
                            };
                            (v, if pick_a { da } else { db })
                        }
                        _ => (f64::NAN, f64::NAN),
                    }
                }
            };
            stack.push(item);
        }
        match (stack.len(), stack.pop()) {
            (1, Some(result)) => result,
            _ => (f64::NAN, f64::NAN),
        }
    }

    /// The source the expression was parsed from.
    #[must_use]
    pub fn source(&self) -> &str {
        &self.source
    }

    /// Whether the expression reads the variable `name` (`u`, `frame` or `time`); false for any other
    /// name.
    #[must_use]
    pub fn uses_variable(&self, name: &str) -> bool {
        let wanted = match name {
            "u" => Op::U,
            "frame" => Op::Frame,
            "time" => Op::Time,
            _ => return false,
        };
        self.program.contains(&wanted)
    }
}

impl FromStr for Expr {
    type Err = ExprError;

    fn from_str(source: &str) -> Result<Expr, ExprError> {
        Expr::parse(source)
    }
}

impl fmt::Display for Expr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.source)
    }
}

/// The operand stack of one evaluation. Out-of-range accesses cannot happen for a parsed program;
/// they would give NaN rather than panic.
struct Stack<const N: usize> {
    items: [f64; N],
    len: usize,
}

impl<const N: usize> Stack<N> {
    #[inline]
    fn push(&mut self, x: f64) {
        if let Some(slot) = self.items.get_mut(self.len) {
            *slot = x;
            self.len += 1;
        }
    }

    #[inline]
    fn pop(&mut self) -> f64 {
        match self.len.checked_sub(1) {
            Some(top) => {
                self.len = top;
                self.items.get(top).copied().unwrap_or(f64::NAN)
            }
            None => f64::NAN,
        }
    }

    #[inline]
    fn unary(&mut self, f: impl FnOnce(f64) -> f64) {
        let x = self.pop();
        self.push(f(x));
    }

    #[inline]
    fn binary(&mut self, f: impl FnOnce(f64, f64) -> f64) {
        let b = self.pop();
        let a = self.pop();
        self.push(f(a, b));
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Tok {
    Num(f64),
    Ident,
    Plus,
    Minus,
    Star,
    Slash,
    Caret,
    LParen,
    RParen,
    Comma,
    End,
}

#[derive(Clone, Copy, Debug)]
struct Token {
    kind: Tok,
    start: usize,
    end: usize,
}

/// A recursive-descent parser that lexes on demand and emits postfix code as it goes.
struct Parser<'a> {
    src: &'a str,
    pos: usize,
    peeked: Option<Token>,
    depth: usize,
    program: Vec<Op>,
    height: usize,
    max_height: usize,
}

impl<'a> Parser<'a> {
    fn new(src: &'a str) -> Self {
        Parser {
            src,
            pos: 0,
            peeked: None,
            depth: 0,
            program: Vec::new(),
            height: 0,
            max_height: 0,
        }
    }

    fn error(offset: usize, kind: ExprErrorKind) -> ExprError {
        ExprError { offset, kind }
    }

    fn text(&self, token: Token) -> &'a str {
        self.src.get(token.start..token.end).unwrap_or("")
    }

    /// The error for `token` standing where `expected` should.
    fn unexpected(&self, token: Token, expected: &'static str) -> ExprError {
        let kind = if token.kind == Tok::End {
            ExprErrorKind::UnexpectedEnd { expected }
        } else {
            ExprErrorKind::UnexpectedToken {
                expected,
                found: String::from(self.text(token)),
            }
        };
        Self::error(token.start, kind)
    }

    fn byte(&self, at: usize) -> Option<u8> {
        self.src.as_bytes().get(at).copied()
    }

    fn peek(&mut self) -> Result<Token, ExprError> {
        match self.peeked {
            Some(token) => Ok(token),
            None => {
                let token = self.lex()?;
                self.peeked = Some(token);
                Ok(token)
            }
        }
    }

    fn next(&mut self) -> Result<Token, ExprError> {
        let token = self.peek()?;
        self.peeked = None;
        Ok(token)
    }

    fn lex(&mut self) -> Result<Token, ExprError> {
        while self.byte(self.pos).is_some_and(|b| b.is_ascii_whitespace()) {
            self.pos += 1;
        }
        let start = self.pos;
        let Some(b) = self.byte(start) else {
            return Ok(Token {
                kind: Tok::End,
                start,
                end: start,
            });
        };
        let single = match b {
            b'+' => Some(Tok::Plus),
            b'-' => Some(Tok::Minus),
            b'*' => Some(Tok::Star),
            b'/' => Some(Tok::Slash),
            b'^' => Some(Tok::Caret),
            b'(' => Some(Tok::LParen),
            b')' => Some(Tok::RParen),
            b',' => Some(Tok::Comma),
            _ => None,
        };
        let kind = if let Some(kind) = single {
            self.pos += 1;
            kind
        } else if b.is_ascii_digit() || b == b'.' {
            self.number(start)?
        } else if b.is_ascii_alphabetic() || b == b'_' {
            while self
                .byte(self.pos)
                .is_some_and(|b| b.is_ascii_alphanumeric() || b == b'_')
            {
                self.pos += 1;
            }
            Tok::Ident
        } else {
            // `start` is a char boundary: only ASCII bytes have been stepped over.
            let found = self
                .src
                .get(start..)
                .and_then(|rest| rest.chars().next())
                .unwrap_or(char::REPLACEMENT_CHARACTER);
            return Err(Self::error(start, ExprErrorKind::UnexpectedChar { found }));
        };
        Ok(Token {
            kind,
            start,
            end: self.pos,
        })
    }

    fn skip_digits(&mut self) -> usize {
        let from = self.pos;
        while self.byte(self.pos).is_some_and(|b| b.is_ascii_digit()) {
            self.pos += 1;
        }
        self.pos - from
    }

    /// A JSON number without its sign, plus `.5` and `2.`.
    fn number(&mut self, start: usize) -> Result<Tok, ExprError> {
        let int_digits = self.skip_digits();
        let mut well_formed = !(int_digits > 1 && self.byte(start) == Some(b'0'));
        let mut frac_digits = 0;
        if self.byte(self.pos) == Some(b'.') {
            self.pos += 1;
            frac_digits = self.skip_digits();
        }
        if int_digits + frac_digits == 0 {
            well_formed = false;
        }
        if matches!(self.byte(self.pos), Some(b'e' | b'E')) {
            self.pos += 1;
            if matches!(self.byte(self.pos), Some(b'+' | b'-')) {
                self.pos += 1;
            }
            if self.skip_digits() == 0 {
                well_formed = false;
            }
        }
        let text = self.src.get(start..self.pos).unwrap_or("");
        match text.parse::<f64>() {
            Ok(x) if well_formed && x.is_finite() => Ok(Tok::Num(x)),
            _ => Err(Self::error(
                start,
                ExprErrorKind::BadNumber {
                    text: String::from(text),
                },
            )),
        }
    }

    /// Enters one more level of nesting, at the token starting at `offset`.
    fn enter(&mut self, offset: usize) -> Result<(), ExprError> {
        self.depth += 1;
        if self.depth > MAX_EXPR_DEPTH {
            return Err(Self::error(
                offset,
                ExprErrorKind::TooDeep {
                    max: MAX_EXPR_DEPTH,
                },
            ));
        }
        Ok(())
    }

    fn leave(&mut self) {
        self.depth = self.depth.saturating_sub(1);
    }

    fn emit(&mut self, op: Op, offset: usize) -> Result<(), ExprError> {
        self.height = self.height.saturating_add_signed(op.stack_effect());
        self.max_height = self.max_height.max(self.height);
        if self.height > EVAL_STACK {
            return Err(Self::error(
                offset,
                ExprErrorKind::TooDeep {
                    max: MAX_EXPR_DEPTH,
                },
            ));
        }
        self.program.push(op);
        Ok(())
    }

    /// `sum = product (("+" | "-") product)*`
    fn sum(&mut self) -> Result<(), ExprError> {
        self.product()?;
        loop {
            let token = self.peek()?;
            let op = match token.kind {
                Tok::Plus => Op::Add,
                Tok::Minus => Op::Sub,
                _ => return Ok(()),
            };
            self.next()?;
            self.product()?;
            self.emit(op, token.start)?;
        }
    }

    /// `product = unary (("*" | "/") unary)*`
    fn product(&mut self) -> Result<(), ExprError> {
        self.unary()?;
        loop {
            let token = self.peek()?;
            let op = match token.kind {
                Tok::Star => Op::Mul,
                Tok::Slash => Op::Div,
                _ => return Ok(()),
            };
            self.next()?;
            self.unary()?;
            self.emit(op, token.start)?;
        }
    }

    /// `unary = ("-" | "+") unary | power`
    fn unary(&mut self) -> Result<(), ExprError> {
        let token = self.peek()?;
        match token.kind {
            Tok::Minus | Tok::Plus => {
                self.next()?;
                self.enter(token.start)?;
                self.unary()?;
                self.leave();
                if token.kind == Tok::Minus {
                    self.emit(Op::Neg, token.start)?;
                }
                Ok(())
            }
            _ => self.power(),
        }
    }

    /// `power = primary ("^" unary)?`
    fn power(&mut self) -> Result<(), ExprError> {
        self.primary()?;
        let token = self.peek()?;
        if token.kind == Tok::Caret {
            self.next()?;
            self.enter(token.start)?;
            self.unary()?;
            self.leave();
            self.emit(Op::Pow, token.start)?;
        }
        Ok(())
    }

    /// `primary = number | name | function "(" arguments ")" | "(" sum ")"`
    fn primary(&mut self) -> Result<(), ExprError> {
        let token = self.next()?;
        match token.kind {
            Tok::Num(x) => self.emit(Op::Num(x), token.start),
            Tok::Ident => self.name(token),
            Tok::LParen => {
                self.enter(token.start)?;
                self.sum()?;
                let close = self.next()?;
                if close.kind != Tok::RParen {
                    return Err(self.unexpected(close, "an operator or `)`"));
                }
                self.leave();
                Ok(())
            }
            _ => Err(self.unexpected(token, OPERAND)),
        }
    }

    fn name(&mut self, token: Token) -> Result<(), ExprError> {
        let name = self.text(token);
        let op = match name {
            "u" => Op::U,
            "frame" => Op::Frame,
            "time" => Op::Time,
            "pi" => Op::Num(core::f64::consts::PI),
            _ => {
                let Some(&(function, callee)) = FUNCTIONS.iter().find(|(n, _)| *n == name) else {
                    return Err(Self::error(
                        token.start,
                        ExprErrorKind::UnknownName {
                            name: String::from(name),
                        },
                    ));
                };
                return self.call(token, function, callee);
            }
        };
        self.emit(op, token.start)
    }

    /// A function call, after the function's name.
    fn call(
        &mut self,
        name: Token,
        function: &'static str,
        callee: Callee,
    ) -> Result<(), ExprError> {
        let open = self.next()?;
        if open.kind != Tok::LParen {
            return Err(Self::error(
                open.start,
                ExprErrorKind::MissingArguments { function },
            ));
        }
        self.enter(open.start)?;
        let mut found = 0;
        if self.peek()?.kind == Tok::RParen {
            self.next()?;
        } else {
            loop {
                self.sum()?;
                found += 1;
                let token = self.next()?;
                match token.kind {
                    Tok::Comma => {}
                    Tok::RParen => break,
                    _ => return Err(self.unexpected(token, "an operator, `,` or `)`")),
                }
            }
        }
        self.leave();
        if found != callee.arity() {
            return Err(Self::error(
                name.start,
                ExprErrorKind::WrongArgumentCount {
                    function,
                    expected: callee.arity(),
                    found,
                },
            ));
        }
        match callee {
            Callee::One(f) => self.emit(Op::Call1(f), name.start),
            Callee::Two(f) => self.emit(Op::Call2(f), name.start),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::boxed::Box;
    use alloc::format;
    use alloc::string::ToString;
    use core::f64::consts::{E, PI};
    use proptest::prelude::*;

    fn vars(u: f64) -> ExprVars {
        ExprVars {
            u,
            frame: 10.0 + 20.0 * u,
            time: (10.0 + 20.0 * u) / 24.0,
        }
    }

    fn eval_at(source: &str, u: f64) -> f64 {
        match Expr::parse(source) {
            Ok(expr) => expr.eval(&vars(u)),
            Err(e) => panic!("`{source}` failed to parse: {e}"),
        }
    }

    fn eval(source: &str) -> f64 {
        eval_at(source, 0.0)
    }

    fn err(source: &str) -> ExprError {
        match Expr::parse(source) {
            Ok(_) => panic!("`{source}` parsed but should not"),
            Err(e) => e,
        }
    }

    macro_rules! assert_close {
        ($a:expr, $b:expr) => {
            assert_close!($a, $b, 1e-12)
        };
        ($a:expr, $b:expr, $tol:expr) => {{
            let (a, b): (f64, f64) = ($a, $b);
            assert!(
                (a - b).abs() <= $tol * (1.0 + b.abs()),
                "{} = {a} but expected {} = {b} (difference {})",
                stringify!($a),
                stringify!($b),
                a - b
            );
        }};
    }

    #[test]
    fn precedence_table() {
        assert_eq!(eval_at("-u^2", 3.0), -9.0);
        assert_eq!(eval("2^3^2"), 512.0);
        assert_eq!(eval("-2^2"), -4.0);
        assert_eq!(eval("(-2)^2"), 4.0);
        assert_eq!(eval("2^-1"), 0.5);
        assert_eq!(eval_at("2^-u", 2.0), 0.25);
        assert_eq!(eval("2^-1^2"), 0.5);
        assert_eq!(eval("2^+1"), 2.0);
        assert_eq!(eval("1-2-3"), -4.0);
        assert_eq!(eval("8/4/2"), 1.0);
        assert_eq!(eval("2*3+4*5"), 26.0);
        assert_eq!(eval("2+3*4"), 14.0);
        assert_eq!(eval("(1+2)*3"), 9.0);
        assert_eq!(eval("--2"), 2.0);
        assert_eq!(eval("-+-2"), 2.0);
        assert_eq!(eval("+2"), 2.0);
        assert_eq!(eval("3--2"), 5.0);
        assert_eq!(eval("2*-3"), -6.0);
        assert_eq!(eval("-2*3"), -6.0);
        assert_eq!(eval("6/-2/3"), -1.0);
        assert_eq!(eval("1-2*3^2"), -17.0);
        assert_eq!(eval("2^2*3"), 12.0);
        assert_eq!(eval("2*2^3"), 16.0);
        assert_eq!(eval("-2^-2"), -0.25);
        assert_eq!(eval("(2^3)^2"), 64.0);
        assert_eq!(eval("2^(1+1)"), 4.0);
        assert_eq!(eval("1 - -1"), 2.0);
    }

    #[test]
    fn functions_match_math() {
        for x in [-0.9, -0.3, 0.0, 0.25, 0.7] {
            let at = |f: &str| eval_at(&format!("{f}(u)"), x);
            assert_eq!(at("sin"), math::sin(x));
            assert_eq!(at("cos"), math::cos(x));
            assert_eq!(at("tan"), math::tan(x));
            assert_eq!(at("asin"), math::asin(x));
            assert_eq!(at("acos"), math::acos(x));
            assert_eq!(at("atan"), math::atan(x));
            assert_eq!(at("exp"), math::exp(x));
            assert_eq!(at("abs"), math::abs(x));
            assert_eq!(at("floor"), math::floor(x));
            assert_eq!(at("sqrt").to_bits(), math::sqrt(x).to_bits());
            assert_eq!(at("ln").to_bits(), math::ln(x).to_bits());
        }
        assert_close!(eval("atan2(1, -1)"), 3.0 * PI / 4.0);
        assert_close!(eval("atan2(-1, -1)"), -3.0 * PI / 4.0);
        assert_eq!(eval("atan2(0, 1)"), 0.0);
        assert_eq!(eval("min(2, -3)"), -3.0);
        assert_eq!(eval("max(2, -3)"), 2.0);
        assert!(eval("min(0/0, 1)").is_nan());
        assert!(eval("max(1, 0/0)").is_nan());
        assert_eq!(eval("floor(-1.5)"), -2.0);
        assert_eq!(eval("floor(2)"), 2.0);
        assert_eq!(eval("abs(-3)"), 3.0);
        assert_close!(eval("ln(exp(1))"), 1.0);
        assert_close!(eval(&format!("ln({E})")), 1.0);
        assert_eq!(eval("sqrt(16)"), 4.0);
        assert_close!(eval("sin(pi/2)"), 1.0);
        assert_close!(eval("cos(pi)"), -1.0);
        assert_close!(eval("tan(pi/4)"), 1.0);
        assert_close!(eval("asin(1)"), PI / 2.0);
        assert_close!(eval("acos(-1)"), PI);
        assert_close!(eval("atan(1)"), PI / 4.0);
        assert_close!(eval("min(max(1, 2), 3) + max(-1, min(-2, -3))"), 1.0);
    }

    #[test]
    fn non_finite_values_pass_through() {
        assert_eq!(eval("ln(0)"), f64::NEG_INFINITY);
        assert!(eval("sqrt(-1)").is_nan());
        assert_eq!(eval("1/0"), f64::INFINITY);
        assert!(eval("asin(2)").is_nan());
    }

    #[test]
    fn variables_and_pi() {
        let v = ExprVars {
            u: 0.25,
            frame: 17.0,
            time: 0.5,
        };
        let at = |s: &str| Expr::parse(s).map(|e| e.eval(&v)).unwrap_or(f64::NAN);
        assert_eq!(at("u"), 0.25);
        assert_eq!(at("frame"), 17.0);
        assert_eq!(at("time"), 0.5);
        assert_eq!(at("pi"), PI);
        assert_eq!(at("u*frame + time"), 0.25 * 17.0 + 0.5);
        assert_eq!(at("frame/time"), 34.0);
    }

    #[test]
    fn lissajous_from_the_spec() {
        for i in 0..=64 {
            let u = f64::from(i) / 64.0;
            assert_close!(
                eval_at("120*sin(3*2*pi*u + pi/2)", u),
                120.0 * (6.0 * PI * u + PI / 2.0).sin()
            );
            assert_close!(
                eval_at("120*sin(3*2*pi*u + pi/2)", u),
                120.0 * (6.0 * PI * u).cos()
            );
            assert_close!(eval_at("80*sin(2*2*pi*u)", u), 80.0 * (4.0 * PI * u).sin());
        }
    }

    #[test]
    fn numbers() {
        assert_eq!(eval("2"), 2.0);
        assert_eq!(eval("0"), 0.0);
        assert_eq!(eval("0.5"), 0.5);
        assert_eq!(eval("1e-3"), 1e-3);
        assert_eq!(eval("1E+2"), 100.0);
        assert_eq!(eval("2.5e2"), 250.0);
        assert_eq!(eval("0e0"), 0.0);
        assert_eq!(eval(".5"), 0.5);
        assert_eq!(eval("2."), 2.0);
        assert_eq!(eval("1e308"), 1e308);
        assert_eq!(eval("1e-400"), 0.0);
    }

    #[test]
    fn whitespace_anywhere_between_tokens() {
        assert_eq!(eval(" \t2 *\n( 3\r+ 4 ) "), 14.0);
        assert_eq!(eval("atan2 ( 0 , 1 )"), 0.0);
        assert_eq!(eval("- 2 ^ 2"), -4.0);
    }

    #[test]
    fn source_display_equality_and_uses_variable() {
        let expr = Expr::parse("u * 2 + time").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(expr.source(), "u * 2 + time");
        assert_eq!(expr.to_string(), "u * 2 + time");
        assert!(expr.uses_variable("u"));
        assert!(expr.uses_variable("time"));
        assert!(!expr.uses_variable("frame"));
        assert!(!expr.uses_variable("pi"));
        assert!(!expr.uses_variable("x"));
        assert_eq!(Ok(expr.clone()), "u * 2 + time".parse::<Expr>());
        assert_ne!(Ok(expr), "u*2+time".parse::<Expr>());
    }

    #[test]
    fn expr_is_send_and_sync() {
        fn check<T: Send + Sync>() {}
        check::<Expr>();
        check::<ExprError>();
    }

    fn kind(source: &str) -> (usize, ExprErrorKind) {
        let e = err(source);
        (e.offset, e.kind)
    }

    fn token(expected: &'static str, found: &str) -> ExprErrorKind {
        ExprErrorKind::UnexpectedToken {
            expected,
            found: found.to_string(),
        }
    }

    #[test]
    fn wrong_argument_counts_name_the_function_at_its_offset() {
        assert_eq!(
            kind("sin(1,2)"),
            (
                0,
                ExprErrorKind::WrongArgumentCount {
                    function: "sin",
                    expected: 1,
                    found: 2
                }
            )
        );
        assert_eq!(
            kind("1 + atan2(1)"),
            (
                4,
                ExprErrorKind::WrongArgumentCount {
                    function: "atan2",
                    expected: 2,
                    found: 1
                }
            )
        );
        assert_eq!(
            kind("max()"),
            (
                0,
                ExprErrorKind::WrongArgumentCount {
                    function: "max",
                    expected: 2,
                    found: 0
                }
            )
        );
        assert_eq!(
            kind("min(1,2,3)").1,
            ExprErrorKind::WrongArgumentCount {
                function: "min",
                expected: 2,
                found: 3
            }
        );
    }

    #[test]
    fn unknown_names_are_reported_with_their_offset() {
        assert_eq!(
            kind("2*foo"),
            (
                2,
                ExprErrorKind::UnknownName {
                    name: "foo".to_string()
                }
            )
        );
        assert_eq!(
            kind("PI").1,
            ExprErrorKind::UnknownName {
                name: "PI".to_string()
            }
        );
        assert_eq!(
            kind("e").1,
            ExprErrorKind::UnknownName {
                name: "e".to_string()
            }
        );
    }

    #[test]
    fn unexpected_tokens_and_ends_say_what_was_expected() {
        assert_eq!(
            kind("2 +"),
            (3, ExprErrorKind::UnexpectedEnd { expected: OPERAND })
        );
        assert_eq!(
            kind("1 2"),
            (2, token("an operator or the end of the expression", "2"))
        );
        assert_eq!(
            kind("2u"),
            (1, token("an operator or the end of the expression", "u"))
        );
        assert_eq!(
            kind("u(2)"),
            (1, token("an operator or the end of the expression", "("))
        );
        assert_eq!(
            kind("(1"),
            (
                2,
                ExprErrorKind::UnexpectedEnd {
                    expected: "an operator or `)`"
                }
            )
        );
        assert_eq!(kind("(1 2)"), (3, token("an operator or `)`", "2")));
        assert_eq!(kind(")"), (0, token(OPERAND, ")")));
        assert_eq!(
            kind("1)"),
            (1, token("an operator or the end of the expression", ")"))
        );
        assert_eq!(kind("()"), (1, token(OPERAND, ")")));
        assert_eq!(kind("1 + * 2"), (4, token(OPERAND, "*")));
        assert_eq!(kind("2^^2"), (2, token(OPERAND, "^")));
        assert_eq!(kind("sin(1,)"), (6, token(OPERAND, ")")));
        assert_eq!(
            kind("sin(1;"),
            (5, ExprErrorKind::UnexpectedChar { found: ';' })
        );
        assert_eq!(kind("sin(1 2"), (6, token("an operator, `,` or `)`", "2")));
        assert_eq!(
            kind("sin(1"),
            (
                5,
                ExprErrorKind::UnexpectedEnd {
                    expected: "an operator, `,` or `)`"
                }
            )
        );
    }

    #[test]
    fn missing_arguments_unexpected_characters_and_empty_sources_are_reported() {
        assert_eq!(
            kind("sin 1"),
            (4, ExprErrorKind::MissingArguments { function: "sin" })
        );
        assert_eq!(
            kind("sin"),
            (3, ExprErrorKind::MissingArguments { function: "sin" })
        );
        assert_eq!(kind("#"), (0, ExprErrorKind::UnexpectedChar { found: '#' }));
        assert_eq!(
            kind("u % 2"),
            (2, ExprErrorKind::UnexpectedChar { found: '%' })
        );
        assert_eq!(
            kind("1 + π"),
            (4, ExprErrorKind::UnexpectedChar { found: 'π' })
        );
        assert_eq!(
            kind("u\u{a0}"),
            (1, ExprErrorKind::UnexpectedChar { found: '\u{a0}' })
        );
        assert_eq!(kind(""), (0, ExprErrorKind::Empty));
        assert_eq!(kind(" \t\n "), (0, ExprErrorKind::Empty));
    }

    #[test]
    fn bad_numbers() {
        for (source, offset, text) in [
            ("01", 0, "01"),
            ("1 + 00.5", 4, "00.5"),
            ("1e", 0, "1e"),
            ("2*1e+", 2, "1e+"),
            ("1E-x", 0, "1E-"),
            (".", 0, "."),
            (".e5", 0, ".e5"),
            ("1e999", 0, "1e999"),
        ] {
            assert_eq!(
                kind(source),
                (
                    offset,
                    ExprErrorKind::BadNumber {
                        text: text.to_string()
                    }
                ),
                "{source}"
            );
        }
        // `1.2.3` is the number `1.2` followed by the number `.3`.
        assert_eq!(
            kind("1.2.3"),
            (3, token("an operator or the end of the expression", ".3"))
        );
    }

    #[test]
    fn limits() {
        let long = "1+".repeat(MAX_EXPR_LEN / 2) + "1";
        assert_eq!(
            kind(&long),
            (
                MAX_EXPR_LEN,
                ExprErrorKind::TooLong {
                    len: MAX_EXPR_LEN + 1,
                    max: MAX_EXPR_LEN
                }
            )
        );
        // Exactly at the limit is fine, and a long flat sum needs no depth.
        let exact = "1+".repeat(MAX_EXPR_LEN / 2 - 1) + "10";
        assert_eq!(exact.len(), MAX_EXPR_LEN);
        assert_eq!(eval(&exact), (MAX_EXPR_LEN / 2 - 1 + 10) as f64);

        let too_deep = ExprErrorKind::TooDeep {
            max: MAX_EXPR_DEPTH,
        };
        let parens = |n: usize| "(".repeat(n) + "u" + &")".repeat(n);
        assert_eq!(eval_at(&parens(MAX_EXPR_DEPTH), 0.5), 0.5);
        assert_eq!(
            kind(&parens(MAX_EXPR_DEPTH + 1)),
            (MAX_EXPR_DEPTH, too_deep.clone())
        );
        assert_eq!(kind(&parens(100)).1, too_deep);
        assert_eq!(kind(&parens(2000)).1, too_deep);

        let minus = |n: usize| "-".repeat(n) + "2";
        assert_eq!(eval(&minus(MAX_EXPR_DEPTH)), 2.0);
        assert_eq!(kind(&minus(MAX_EXPR_DEPTH + 1)).1, too_deep);
        assert_eq!(kind(&minus(4000)).1, too_deep);
        // Longer than the length limit: that is reported first.
        assert!(matches!(
            kind(&minus(10_000)).1,
            ExprErrorKind::TooLong { .. }
        ));

        let powers = |n: usize| "1^".repeat(n) + "1";
        assert_eq!(eval(&powers(MAX_EXPR_DEPTH)), 1.0);
        assert_eq!(kind(&powers(MAX_EXPR_DEPTH + 1)).1, too_deep);

        let calls = |n: usize| "sin(".repeat(n) + "0" + &")".repeat(n);
        assert_eq!(eval(&calls(MAX_EXPR_DEPTH)), 0.0);
        assert_eq!(kind(&calls(MAX_EXPR_DEPTH + 1)).1, too_deep);
        assert_eq!(kind(&calls(800)).1, too_deep);

        // The widest operand stack the depth limit allows still evaluates.
        let mut wide = String::new();
        for _ in 0..MAX_EXPR_DEPTH / 2 {
            wide.push_str("1+2*3^atan2(1, ");
        }
        wide.push('1');
        wide.push_str(&")".repeat(MAX_EXPR_DEPTH / 2));
        assert!(eval(&wide).is_finite());
    }

    #[test]
    fn deep_stacks_use_the_large_array() {
        let nested = |n: usize| "1+(".repeat(n) + "1" + &")".repeat(n);
        for n in [
            0,
            1,
            SMALL_STACK - 2,
            SMALL_STACK - 1,
            SMALL_STACK,
            40,
            MAX_EXPR_DEPTH,
        ] {
            let expr = Expr::parse(&nested(n)).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(expr.stack_needed, n + 1);
            assert_eq!(expr.eval(&vars(0.0)), (n + 1) as f64);
        }
        let flat = Expr::parse("1+2+3+4+5+6").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(flat.stack_needed, 2);
    }

    #[test]
    fn error_messages() {
        assert_eq!(
            err("2 + foo").to_string(),
            "at column 5: unknown name `foo`; expected u, frame, time, pi or one of the functions \
             sin, cos, tan, asin, acos, atan, atan2, sqrt, exp, ln, abs, min, max, floor"
        );
        assert_eq!(
            err("sin(1,2)").to_string(),
            "at column 1: `sin` takes 1 argument, found 2"
        );
        assert_eq!(
            err("max(1)").to_string(),
            "at column 1: `max` takes 2 arguments, found 1"
        );
        assert_eq!(
            err("1 2").to_string(),
            "at column 3: expected an operator or the end of the expression, found `2`"
        );
        assert_eq!(
            err("(1").to_string(),
            "at column 3: unexpected end of expression; expected an operator or `)`"
        );
        assert_eq!(
            err("#").to_string(),
            "at column 1: unexpected character `#`"
        );
        assert_eq!(err("01").to_string(), "at column 1: malformed number `01`");
        assert_eq!(err("").to_string(), "at column 1: expression is empty");
        assert_eq!(
            err(&"(".repeat(65)).to_string(),
            "at column 65: expression nests more than 64 levels deep"
        );
    }

    /// An expression tree, evaluated directly, to check the parser against.
    #[derive(Clone, Debug)]
    enum Tree {
        Num(f64),
        Var(usize),
        Pi,
        Neg(Box<Tree>),
        Bin(char, Box<Tree>, Box<Tree>),
        F1(&'static str, Box<Tree>),
        F2(&'static str, Box<Tree>, Box<Tree>),
    }

    const VARS: [&str; 3] = ["u", "frame", "time"];
    const F1S: [&str; 11] = [
        "sin", "cos", "tan", "asin", "acos", "atan", "sqrt", "exp", "ln", "abs", "floor",
    ];
    const F2S: [&str; 3] = ["atan2", "min", "max"];

    impl Tree {
        fn eval(&self, v: &ExprVars) -> f64 {
            match self {
                Tree::Num(x) => *x,
                Tree::Var(i) => [v.u, v.frame, v.time][*i],
                Tree::Pi => PI,
                Tree::Neg(a) => -a.eval(v),
                Tree::Bin(op, a, b) => {
                    let (a, b) = (a.eval(v), b.eval(v));
                    match op {
                        '+' => a + b,
                        '-' => a - b,
                        '*' => a * b,
                        '/' => a / b,
                        _ => math::powf(a, b),
                    }
                }
                Tree::F1(f, a) => {
                    let a = a.eval(v);
                    match *f {
                        "sin" => math::sin(a),
                        "cos" => math::cos(a),
                        "tan" => math::tan(a),
                        "asin" => math::asin(a),
                        "acos" => math::acos(a),
                        "atan" => math::atan(a),
                        "sqrt" => math::sqrt(a),
                        "exp" => math::exp(a),
                        "ln" => math::ln(a),
                        "abs" => math::abs(a),
                        _ => math::floor(a),
                    }
                }
                Tree::F2(f, a, b) => {
                    let (a, b) = (a.eval(v), b.eval(v));
                    match *f {
                        "atan2" => math::atan2(a, b),
                        _ if a.is_nan() || b.is_nan() => f64::NAN,
                        "min" => a.min(b),
                        _ => a.max(b),
                    }
                }
            }
        }

        /// Fully parenthesized.
        fn full(&self) -> String {
            match self {
                Tree::Num(x) => format!("{x:?}"),
                Tree::Var(i) => VARS[*i].to_string(),
                Tree::Pi => "pi".to_string(),
                Tree::Neg(a) => format!("(-{})", a.full()),
                Tree::Bin(op, a, b) => format!("({} {op} {})", a.full(), b.full()),
                Tree::F1(f, a) => format!("{f}({})", a.full()),
                Tree::F2(f, a, b) => format!("{f}({}, {})", a.full(), b.full()),
            }
        }

        /// Binding strength of the printed form: 1 sum, 2 product, 3 unary, 4 power, 5 atom.
        fn level(&self) -> u8 {
            match self {
                Tree::Bin('+' | '-', ..) => 1,
                Tree::Bin('*' | '/', ..) => 2,
                Tree::Neg(_) => 3,
                Tree::Bin(..) => 4,
                _ => 5,
            }
        }

        /// With only the parentheses the grammar needs, so precedence and grouping are exercised.
        fn minimal(&self) -> String {
            let wrap = |t: &Tree, needed: bool| {
                if needed {
                    format!("({})", t.minimal())
                } else {
                    t.minimal()
                }
            };
            match self {
                Tree::Neg(a) => format!("-{}", wrap(a, a.level() < 3)),
                Tree::Bin('^', a, b) => {
                    format!("{}^{}", wrap(a, a.level() < 5), wrap(b, b.level() < 3))
                }
                Tree::Bin(op, a, b) => {
                    let l = self.level();
                    format!(
                        "{} {op} {}",
                        wrap(a, a.level() < l),
                        wrap(b, b.level() <= l)
                    )
                }
                Tree::F1(f, a) => format!("{f}({})", a.minimal()),
                Tree::F2(f, a, b) => format!("{f}({}, {})", a.minimal(), b.minimal()),
                _ => self.full(),
            }
        }
    }

    fn tree() -> impl Strategy<Value = Tree> {
        let leaf = prop_oneof![
            (0.0..100.0f64).prop_map(Tree::Num),
            (1e-9..1e9f64).prop_map(Tree::Num),
            (0u32..20).prop_map(|n| Tree::Num(f64::from(n))),
            (0usize..3).prop_map(Tree::Var),
            Just(Tree::Pi),
        ];
        leaf.prop_recursive(6, 48, 2, |inner| {
            prop_oneof![
                inner.clone().prop_map(|a| Tree::Neg(Box::new(a))),
                (
                    prop::sample::select(vec!['+', '-', '*', '/', '^']),
                    inner.clone(),
                    inner.clone()
                )
                    .prop_map(|(op, a, b)| Tree::Bin(op, Box::new(a), Box::new(b))),
                (prop::sample::select(F1S.to_vec()), inner.clone())
                    .prop_map(|(f, a)| Tree::F1(f, Box::new(a))),
                (prop::sample::select(F2S.to_vec()), inner.clone(), inner)
                    .prop_map(|(f, a, b)| Tree::F2(f, Box::new(a), Box::new(b))),
            ]
        })
    }

    fn same(a: f64, b: f64) -> bool {
        a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
    }

    const VALID: [&str; 8] = [
        "120*sin(3*2*pi*u + pi/2)",
        "80*sin(2*2*pi*u)",
        "-u^2 + 2^-u*atan2(u, 1 - u)",
        "min(max(u, 0.25), 0.75) * frame / time",
        "floor(u*4)/4 + ln(1 + u) - exp(-u)",
        "sqrt(abs(u - 0.5)) ^ 2 ^ 0.5",
        "(acos(u) + asin(u)) * tan(u) / cos(u)",
        "1e-3 * .5 + 2. - --u",
    ];

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]

        #[test]
        fn random_ascii_never_panics(source in "[ -~\t\n]{0,80}") {
            if let Ok(expr) = Expr::parse(&source) {
                let _ = expr.eval(&vars(0.5));
            }
        }

        #[test]
        fn random_bytes_never_panic(source in any::<String>()) {
            if let Ok(expr) = Expr::parse(&source) {
                let _ = expr.eval(&vars(0.5));
            }
        }

        #[test]
        fn mutations_of_valid_expressions_never_panic(
            which in 0..VALID.len(),
            edits in prop::collection::vec((any::<prop::sample::Index>(), 0u8..3, "[-+*/^(),.0-9a-z #e]"), 1..6),
        ) {
            let mut source: Vec<char> = VALID[which].chars().collect();
            for (at, action, text) in edits {
                let c = text.chars().next().unwrap_or(' ');
                let i = at.index(source.len() + 1);
                match action {
                    0 => source.insert(i, c),
                    1 if i < source.len() => { source.remove(i); }
                    _ if i < source.len() => source[i] = c,
                    _ => source.push(c),
                }
            }
            let source: String = source.into_iter().collect();
            match Expr::parse(&source) {
                Ok(expr) => { let _ = expr.eval(&vars(0.3)); }
                Err(e) => prop_assert!(e.offset <= source.len(), "{e} in `{source}`"),
            }
        }

        #[test]
        fn trees_evaluate_like_their_printed_forms(t in tree(), u in -2.0..2.0f64) {
            let v = vars(u);
            let want = t.eval(&v);
            for source in [t.full(), t.minimal()] {
                let expr = Expr::parse(&source);
                prop_assert!(expr.is_ok(), "`{}` failed: {:?}", source, expr);
                if let Ok(expr) = expr {
                    let got = expr.eval(&v);
                    prop_assert!(same(got, want), "`{}` gave {} but the tree gives {}", source, got, want);
                }
            }
        }
    }
}

#[cfg(test)]
mod derivative_tests {
    use super::*;

    /// Forward-mode derivatives agree with central differences of `eval`.
    #[test]
    fn derivatives_match_finite_differences() {
        let sources = [
            "120*sin(3*2*pi*u + pi/2)",
            "u^3 - 2*u^2 + u",
            "2^u * exp(-u) / (1 + u^2)",
            "sqrt(u + 1) * ln(u + 2) - atan(u)",
            "atan2(u, 1 - u) + asin(u/2) + acos(u/3) + tan(u)",
            "abs(u - 0.3) + min(u, 0.6) + max(u^2, 0.2) + floor(3*u)",
            "frame * time - u^u",
        ];
        let rates = ExprVars {
            u: 1.0,
            frame: 40.0,
            time: 40.0 / 24.0,
        };
        for src in sources {
            let e = Expr::parse(src).unwrap();
            for i in 1..20 {
                let u = f64::from(i) / 20.0 + 0.013;
                let at = |u: f64| ExprVars {
                    u,
                    frame: 10.0 + 40.0 * u,
                    time: (10.0 + 40.0 * u) / 24.0,
                };
                let (v, d) = e.eval_with_derivative(&at(u), &rates);
                assert_eq!(v.to_bits(), e.eval(&at(u)).to_bits(), "{src} value at {u}");
                let h = 1e-6;
                let numeric = (e.eval(&at(u + h)) - e.eval(&at(u - h))) / (2.0 * h);
                let tol = 1e-6 * (1.0 + numeric.abs());
                assert!(
                    (d - numeric).abs() <= tol,
                    "{src} at u = {u}: {d} vs {numeric}"
                );
            }
        }
    }

    #[test]
    fn constant_subexpressions_have_zero_derivative() {
        let e = Expr::parse("sqrt(0) + u").unwrap();
        let (v, d) = e.eval_with_derivative(
            &ExprVars {
                u: 0.5,
                frame: 0.0,
                time: 0.0,
            },
            &ExprVars {
                u: 1.0,
                frame: 0.0,
                time: 0.0,
            },
        );
        assert_eq!((v, d), (0.5, 1.0));
    }
}
