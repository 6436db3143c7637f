import click

@click.group()
@click.version_option("1.0.0")
def cli():
    """Manage the notes of a project."""

@cli.command()
@click.option("--limit", type=int, default=10, help="How many notes to list.")
def list(limit):
    """List the notes."""

@cli.command()
@click.argument("note_id")
def show(note_id):
    """Show one note."""

@cli.command(name="add-tag")
@click.argument("tag")
def add_tag(tag):
    """Tag a note."""

@cli.group()
def remote():
    """Manage the remotes notes sync with."""

@remote.command()
def sync():
    """Sync the notes."""

if __name__ == "__main__":
    cli(prog_name="notes")
