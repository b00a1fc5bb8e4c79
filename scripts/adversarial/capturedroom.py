"""CapturedRoom JSON: a valid one-wall room; a case swaps in its own walls or objects, or appends keys."""

WALL = ('{"category":{"wall":{}},"completedEdges":[],"confidence":{"high":{}},"curve":null,'
        '"dimensions":[4,2.5,0],"identifier":"%s","parentIdentifier":null,"polygonCorners":[],"story":0,'
        '"transform":[1,0,0,0,0,1,0,0,0,0,1,0,0,0,0,1]}')


def room_json(walls=None, objects="[]", extra=""):
    walls = walls if walls is not None else "[" + WALL % "00000000-0000-0000-0000-000000000001" + "]"
    return ('{"coreModel":"","doors":[],"floors":[],"objects":%s,"openings":[],"sections":[],"story":0,'
            '"version":2,"walls":%s,"windows":[]%s}' % (objects, walls, extra)).encode()
