"""What the Barre and F-Barre report sections share: the proxies' classes
(`mcmgpu barre gen --list`: name, class, Table I's MPKI)."""


def read_classes(raw):
    """The proxies in order, their class and their MPKI, from RAW."""
    classes = [line.split() for line in open(f"{raw}/classes.txt")]
    return ([c[0] for c in classes], {c[0]: c[1] for c in classes},
            {c[0]: float(c[2]) for c in classes})
