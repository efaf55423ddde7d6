"""The review screen's look (Textual CSS), kept in the package so an installed script has it."""

CSS = """
#top { height: 1; padding: 0 1; }
#file { width: auto; max-width: 40; margin-right: 2; text-style: bold; }
#progress { width: 1fr; }
#progress Bar { width: 1fr; }
#chars { width: auto; margin-left: 2; color: $text-muted; }
#status { height: auto; padding: 0 1; background: $boost; }
#status.-error { background: $error 30%; color: $text; }
#status.-warn { background: $warning 25%; }
#status.-done { background: $success 30%; text-style: bold; }
#status.-busy { color: $text-muted; }
#cards { height: 1fr; padding: 0 1; }
#log { height: 5; border-top: solid $panel; padding: 0 1; }
#message { dock: bottom; margin-bottom: 1; }
#message:disabled { display: none; }

.card { height: auto; border: round $panel; padding: 0 1; margin-bottom: 1; }
.card.-current { border: round $accent; }
.card.-approve { border: round $success; }
.card.-refined { border: round $secondary; }
.card.-reject { border: round $error; }
.card.-current.-approve, .card.-current.-refined, .card.-current.-reject { border: double $accent; }
.card .pair { height: auto; }
.card .side { width: 1fr; height: auto; padding-right: 1; }
.card .caption { color: $text-muted; text-style: italic; }
.card .warning { color: $warning; }
.card .warning.-error { color: $error; text-style: bold; }
.card .current { color: $text-muted; }
.card .decision { height: auto; color: $text-muted; display: none; }
.card.-approve .decision, .card.-refined .decision, .card.-reject .decision { display: block; }
.card.-approve .decision { color: $success; }
.card.-reject .decision { color: $error; }

EditScreen, RejectScreen, ConfirmScreen, FormsEditScreen, ContextScreen { align: center middle; }
.box { width: 80%; max-width: 100; height: auto; border: thick $accent; background: $surface; padding: 1 2; }
.box .source { color: $text-muted; margin-bottom: 1; }
.box TextArea { height: 10; }
.box TextArea.form { height: 4; }
.card .context { height: auto; color: $text-muted; }
.box .codes { height: auto; }
.box .note { height: auto; color: $warning; }
ContextScreen .box { max-height: 90%; }
ContextScreen VerticalScroll { height: auto; max-height: 30; }
"""
