VALUE = "sibling of " + __package__
