import argparse
p = argparse.ArgumentParser(prog="notes", description="Manage the notes of a project.")
p.add_argument("--version", action="version", version="notes 1.0.0")
sub = p.add_subparsers(dest="command", title="commands", metavar="{list,show,add-tag,remote}")
sub.add_parser("list", help="List the notes.")
s = sub.add_parser("show", help="Show one note."); s.add_argument("note_id")
sub.add_parser("add-tag", help="Tag a note.")
sub.add_parser("remote", help="Manage the remotes notes sync with.")
p.parse_args()
